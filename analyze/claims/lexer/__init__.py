"""The figures in one line of mail, with their units (numbers.py), and the values they make
(quantity.py)."""
