"""The other-mail list: stored mail that no series holds (reviews of patches never stored,
lone mail), newest first. The rows are read once, in a worker (`corpus.browse.other_mail`);
the table is filled from them a page at a time, as the series list is from the store."""

from __future__ import annotations

from rich.text import Text

from corpus.browse import MailRow

from ..safe import one_line
from .series_list import PAGE, ListFilter, PagedList, cell

# Two lines a row: the subject over its sender, the day over the time (replies come minutes
# apart). The subject and the sender each get the width the list has left (40 characters at
# 120 columns), where columns side by side left the subject 14.
COLUMNS = (("date", 10), ("claims", 6), ("mail", 80))


def mail_cells(row: MailRow) -> tuple[Text, ...]:
    when = Text(one_line(row.date[:10]), style="dim", no_wrap=True)
    when.append("\n" + one_line(row.date[11:16]), style="dim")
    mail = Text(one_line(row.subject or "(no subject)", 80), style="bold" if row.claims else "",
                no_wrap=True)
    mail.append("\n" + one_line(row.sender or "?", 80), style="dim")
    return (when, cell(row.claims or "", style="cyan"), mail)


class MailList(PagedList):
    """Mail rows keyed by message key; `rows_read` is None until the worker has read them."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.rows_read: list[MailRow] | None = None
        self._shown: list[MailRow] = []  # the rows the filter keeps, in order
        self._by_key: dict[str, MailRow] = {}

    def on_mount(self) -> None:
        for label, width in COLUMNS:
            self.add_column(label, width=width, key=label)

    def show(self, rows: list[MailRow] | None, new_filter: ListFilter | None = None) -> None:
        """Fill the table again: from new rows (None: those read before), or another
        filter. Only the search and `with claims` apply to mail."""
        if rows is not None:
            self.rows_read = rows
            self._by_key = {r.key: r for r in rows}
        if new_filter is not None:
            self.filter = new_filter
        keep = self.current_id()
        f = self.filter
        self._shown = [r for r in self.rows_read or ()
                       if (not f.search or r.matches(f.search)) and (r.claims or not f.has_claims)]
        self.total = len(self._shown)
        self.clear()
        self._done = False
        self.load_page()
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))

    def load_page(self) -> int:
        start = self.row_count
        page = self._shown[start:start + PAGE]
        for row in page:
            self.add_row(*mail_cells(row), key=row.key, height=2)
        self._done = start + len(page) >= len(self._shown)
        return len(page)

    def current_row(self) -> MailRow | None:
        key = self.current_id()
        return None if key is None else self._by_key.get(key)
