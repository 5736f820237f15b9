"""What ``langgraph.json`` loads besides the graphs: the custom app and its guards."""
