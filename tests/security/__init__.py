"""Attack suite: cross-learner leaks through a real ``langgraph dev`` server."""
