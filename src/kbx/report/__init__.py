"""Rendering a report (`kbx.analysis.report.Report`, computed from the store) for people: terminal and Markdown
tables (`tables`), one self-contained HTML file (`html`, with `svg` charts and `drilldown` task panels). Nothing
here computes a metric: `kbx.analysis` does."""
