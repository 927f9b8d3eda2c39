"""One mail understood: decoded (charsets, headers, MIME), its subject split, its trailers,
diff, diffstat and pull request found (all of it for one mail: message.py), and mail put into
threads and series."""
