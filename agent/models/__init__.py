"""Model providers: the chat model factory, embeddings and the offline policy model."""
