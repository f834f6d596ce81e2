"""Where exchanged credentials are kept between calls, per app and user."""
