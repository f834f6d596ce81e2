"""google-adk's HTTP API server for agent folders (`adk-nb api_server`); needs `pip install "adk_nb[server]"`."""
