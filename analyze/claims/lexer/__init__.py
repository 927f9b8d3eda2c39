"""The figures in one line of mail (numbers.py, which skips the digits of dates, addresses,
versions and names: number_spans.py), their units (units.py), and the values they make
(quantity.py); first_chars.py makes its word-list regexes fast."""
