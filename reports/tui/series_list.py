"""The series list: a DataTable filled a page at a time from the store, so the first screen
of a store of any size is one indexed query, and moving down loads the next page before the
cursor reaches the end."""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, replace

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist

from corpus.browse import disagreeing_series
from corpus.records import SeriesRow
from corpus.store import Store

from ..safe import one_line

PAGE = 100
AHEAD = 25  # rows left below the cursor when the next page is read


@dataclass(frozen=True, slots=True)
class ListFilter:
    search: str = ""
    tree: str | None = None
    has_claims: bool = False
    verdict: str | None = None
    sort: str = "date"  # or "effect"

    def describe(self) -> str:
        parts = [f"sort: {'largest claimed change' if self.sort == 'effect' else 'newest'}"]
        if self.tree:
            parts.append(f"tree: {self.tree}")
        if self.has_claims:
            parts.append("with claims")
        if self.verdict:
            parts.append(f"verdict: {self.verdict.replace('_', ' ')}")
        if self.search:
            parts.append(f"search: {self.search}")
        return " · ".join(parts)

    def with_(self, **changes: object) -> ListFilter:
        return replace(self, **changes)  # type: ignore[arg-type]


def cell(value: object, width: int | None = None, style: str = "") -> Text:
    # Text, never a str: DataTable reads a str cell as markup
    return Text(one_line(None if value is None else str(value), width), style=style, no_wrap=True)


# The name is the last column and takes what the others leave of the list's width: the date,
# the claims and the largest change are all the list shows besides (the tree and the
# version are in the heading above the tabs, and the tree in the status line when it
# filters). Each column costs its width and two of padding: with the tree and the version
# too, a 120-column terminal showed 6 characters of the name.
COLUMNS = (("date", 10), ("claims", 6), ("change", 7), ("series", 80))
# beside the count of claims: the kernel test robot measured the opposite of one of them
# (the status line says so while the store holds such a series)
DISAGREES = "≠"
DISAGREES_LEGEND = f"{DISAGREES} the kernel test robot measured the opposite of a claim"


def row_cells(row: SeriesRow, disagrees: bool = False) -> tuple[Text, ...]:
    effect = "" if row.effect is None else f"{row.effect:.1f} %"
    name = Text(f"v{row.version} ", style="dim") if row.version > 1 else Text()
    name.append_text(cell(row.name, 80, "bold" if row.claims else ""))
    claims = cell(row.claims or "", style="cyan")
    if disagrees:
        claims.append(f" {DISAGREES}", style="bold red")
    return (
        cell((row.date_utc or "")[:10], style="dim"),
        claims,
        cell(effect, style="green" if row.effect else ""),
        name,
    )


class PagedList(DataTable[Text]):
    """A list shown a page of rows at a time: the next page is added as the cursor nears the
    end, as the view is scrolled near it, and every page for End. Rows are keyed by what
    the detail pane shows for them."""

    BINDINGS = [
        Binding("end,ctrl+end", "scroll_bottom", "Last", show=False),
        Binding("home,ctrl+home", "scroll_top", "First", show=False),
    ]

    def __init__(self, **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)  # type: ignore[arg-type]
        self.filter = ListFilter()
        self.total = 0
        self._done = False

    @abstractmethod
    def load_page(self) -> int:
        """Append the next page; how many rows came."""

    def current_id(self) -> str | None:
        if not self.row_count:
            return None
        try:
            key = self.coordinate_to_cell_key(self.cursor_coordinate).row_key
        except CellDoesNotExist:  # the table is being refilled
            return None
        return None if key.value is None else str(key.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.cursor_row >= self.row_count - AHEAD:
            self.load_page()

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        # the mouse wheel scrolls without moving the cursor
        if new_value >= self.max_scroll_y - AHEAD:
            self.load_page()

    def action_scroll_bottom(self) -> None:
        """The last row: every page added first (16,000 series in about 1.5 s)."""
        while not self._done:
            self.load_page()
        super().action_scroll_bottom()


class SeriesList(PagedList):
    """Series rows keyed by series id, each page one indexed query of the store."""

    def __init__(self, store: Store, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.store = store
        self._last: SeriesRow | None = None  # the last row read: the next page follows it
        # the series a robot finding disagrees with: read with the store's new mail, not
        # with each filter (few series, each read with its claims)
        self.disagreeing: frozenset[str] = frozenset()

    def on_mount(self) -> None:
        for label, width in COLUMNS:
            self.add_column(label, width=width, key=label)
        self.reload()

    def reload(self, new_filter: ListFilter | None = None) -> None:
        """Read the list again from its first page (a new filter, or new mail)."""
        if new_filter is not None:
            self.filter = new_filter
        else:
            self.disagreeing = disagreeing_series(self.store)
        keep = self.current_id()
        self.clear()
        self._last, self._done = None, False
        f = self.filter
        self.total = self.store.series_count(search=f.search or None, tree=f.tree,
                                             has_claims=f.has_claims, verdict=f.verdict)
        self.load_page()
        if keep is not None and keep in self.rows:
            self.move_cursor(row=self.get_row_index(keep))

    def load_page(self) -> int:
        if self._done:
            return 0
        f = self.filter
        rows = self.store.series_page(search=f.search or None, tree=f.tree,
                                      has_claims=f.has_claims, verdict=f.verdict, sort=f.sort,
                                      after=self._last, limit=PAGE)
        added = 0
        for row in rows:
            # a series rebuilt meanwhile with another date can come round again
            if row.id not in self.rows:
                self.add_row(*row_cells(row, row.id in self.disagreeing), key=row.id)
                added += 1
        if rows:
            self._last = rows[-1]
        self._done = len(rows) < PAGE
        return added
