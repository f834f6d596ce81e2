"""google-adk 2.x's path for the Task API's pieces (task-mode agents end their task with finish_task)."""
