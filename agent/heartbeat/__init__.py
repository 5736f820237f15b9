"""The heartbeat's logic: state, working memory, tokens, prompts, summaries, tool protocol, nodes."""
