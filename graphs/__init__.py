"""LangGraph graphs: wiring only; logic lives in agent/ and tools/."""
