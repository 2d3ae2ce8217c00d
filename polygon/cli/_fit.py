"""Tables that fit the terminal: as they are when they fit, narrower or vertical when they do not.

A table "fits" when no line of a cell is wrapped to more than `MAX_CELL_LINES` lines at the
console's width (a cell's own line breaks, as in a transcript excerpt, are not wrapping). A
table that does not fit first loses the columns it names as droppable (least useful first); if it
still does not fit, each row is printed as a block instead (its key columns as a heading, the other
cells below as `header: value`), which reads at any width. A wide terminal sees the table unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

MAX_CELL_LINES = 3
#: In the vertical layout, values this short share a line.
SHORT = 40


def _as_text(console: Console, cell: RenderableType, *, overflow: str | None, no_wrap: bool | None) -> Text | None:
    if isinstance(cell, Text):
        return cell
    if isinstance(cell, str):
        text = console.render_str(cell, overflow=overflow)  # type: ignore[arg-type]
        text.no_wrap = no_wrap
        return text
    return None


def tallest_cell(console: Console, table: Table) -> int:
    """The most lines any one line of a cell of `table` is wrapped to on `console` (its width)."""
    options = console.options.update_width(max(console.width - table._extra_width, 1))
    # Rich's own column widths, so the count is exactly what the printed table will show.
    widths = table._calculate_column_widths(console, options)
    tallest = 1
    for index, (column, width) in enumerate(zip(table.columns, widths, strict=False)):
        inner = max(width - table._get_padding_width(index), 1)
        cell_options = options.update(width=inner, overflow=column.overflow, no_wrap=column.no_wrap, height=None)
        for cell in column.cells:
            text = _as_text(console, cell, overflow=column.overflow, no_wrap=column.no_wrap)
            # Each line the cell asks for itself (a transcript excerpt's) is measured on its own.
            pieces = text.split("\n") if text is not None else [cell]
            for piece in pieces:
                tallest = max(tallest, len(console.render_lines(piece, cell_options, pad=False)))
    return tallest


def fits(console: Console, table: Table) -> bool:
    """True when every cell of `table` takes at most MAX_CELL_LINES lines on `console`."""
    return tallest_cell(console, table) <= MAX_CELL_LINES


def _without(table: Table, drop: set[str]) -> Table:
    keep = [c for c in table.columns if str(c.header) not in drop]
    out = Table(title=table.title, caption=table.caption, box=table.box, show_lines=table.show_lines,
                show_header=table.show_header, collapse_padding=table.collapse_padding, pad_edge=table.pad_edge)
    for c in keep:
        out.add_column(c.header, justify=c.justify, style=c.style, no_wrap=c.no_wrap, overflow=c.overflow,
                       min_width=c.min_width, max_width=c.max_width)
    for row in zip(*(list(c.cells) for c in keep), strict=True):
        out.add_row(*row)
    return out


def _vertical(console: Console, table: Table, keys: int) -> Group:
    """Each row as a block: the first `keys` cells joined as its heading, then the others."""
    columns = table.columns
    cells = [list(c.cells) for c in columns]
    parts: list[RenderableType] = []
    if table.title:
        parts.append(Text(table.title, style="bold") if isinstance(table.title, str) else table.title)
    for r in range(len(cells[0]) if cells else 0):
        heading = Text(" · ").join(_plain(console, cells[i][r]) for i in range(min(keys, len(columns))))
        parts.append(Text("▸ ", style="bold") + heading)
        packed: list[Text] = []
        blocks: list[RenderableType] = []
        for i in range(keys, len(columns)):
            value = _plain(console, cells[i][r])
            if not value.plain.strip():
                continue
            label = Text(f"{columns[i].header}: ", style="dim")
            if len(value.plain) <= SHORT:  # short values share one line (their own lines as a list)
                packed.append(label + Text(", ").join(value.split("\n")))
            else:  # its own lines, indented under its header (wrapped lines keep the indent)
                blocks.append(Padding(label, (0, 0, 0, 2), expand=False))
                blocks.extend(Padding(line, (0, 0, 0, 4), expand=False) for line in value.split("\n"))
        if packed:
            parts.append(Padding(Text(" · ").join(packed), (0, 0, 0, 2), expand=False))
        parts.extend(blocks)
    if table.caption:
        parts.append(Text(table.caption, style="dim") if isinstance(table.caption, str) else table.caption)
    return Group(*parts)


def _plain(console: Console, cell: RenderableType) -> Text:
    text = _as_text(console, cell, overflow=None, no_wrap=None)
    return text if text is not None else Text(str(cell))


def fit(console: Console, table: Table, *, drop: Sequence[str] = (), keys: int = 1) -> RenderableType:
    """`table` as it is when it fits `console`; else without the `drop` columns (in order, as few
    as needed); else vertical, each row a block headed by its first `keys` cells."""
    if fits(console, table):
        return table
    dropped: set[str] = set()
    for name in drop:
        dropped.add(name)
        narrower = _without(table, dropped)
        if fits(console, narrower):
            return narrower
    return _vertical(console, table, keys)
