"""The markdown table shared by the LoCoMo and ablation reports."""

from bench.markdown_table import markdown_table


def test_table_aligns_numeric_columns_right() -> None:
    table = markdown_table(["preset", "R@10", "p50 ms"], [["a", "0.811", "104.9"]], numeric_from=1)
    assert table.splitlines() == ["| preset | R@10 | p50 ms |", "|---|---:|---:|", "| a | 0.811 | 104.9 |"]


def test_table_without_numeric_columns_and_rows() -> None:
    assert markdown_table(["variant", "role"], []) == "| variant | role |\n|---|---|"
