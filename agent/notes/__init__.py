"""The Zettelkasten: note models, extraction, A-MEM linking, evolution, concept maps, artifacts."""
