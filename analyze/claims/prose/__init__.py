"""Claims written as sentences: the sentences that may hold one (sentences.py), whether a rule
could match (gate.py), and spaCy's rule matching over their shape (rules.py, shape.py,
read.py)."""
