"""LangChain tools: thin wrappers over the stores in agent/."""
