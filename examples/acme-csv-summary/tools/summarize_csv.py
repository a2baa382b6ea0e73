"""summarize_csv: a quick profile of a CSV file in the workspace (permission fs:read:workspace).

For every column: the inferred type (integer, number, boolean, date, text or empty), how many values
are missing, how many are distinct, and for numbers and dates the min, max and (numbers) mean.
Standard library only; the file is streamed, so large files are fine.
"""
import csv
import io
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from protocol import ToolError, serve_tools  # noqa: E402

MISSING = {"", "na", "n/a", "nan", "null", "none", "-", "?"}
BOOLEANS = {"true", "false", "yes", "no", "y", "n", "t", "f"}
INTEGER = re.compile(r"^[+-]?\d+$")
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?")
MAX_DISTINCT = 10000


def inside_workspace(context, path):
    root = context.get("workspace")
    if not root:
        raise ToolError("This tool reads a CSV file from your workspace: choose a workspace folder for the run.")
    if os.path.isabs(path):
        raise ToolError('"%s" is absolute; give a path relative to the workspace folder.' % path)
    full = os.path.realpath(os.path.join(root, path))
    if os.path.commonpath([full, os.path.realpath(root)]) != os.path.realpath(root):
        raise ToolError('"%s" is outside the workspace folder.' % path)
    if not os.path.isfile(full):
        raise ToolError('There is no file "%s" in the workspace.' % path)
    return full


class Column:
    def __init__(self, name):
        self.name = name
        self.count = 0
        self.missing = 0
        self.kinds = {"integer": 0, "number": 0, "boolean": 0, "date": 0, "text": 0}
        self.total = 0.0
        self.minimum = None
        self.maximum = None
        self.first_date = None
        self.last_date = None
        self.distinct = set()
        self.distinct_overflow = False
        self.examples = []

    def add(self, raw):
        self.count += 1
        value = raw.strip()
        if value.lower() in MISSING:
            self.missing += 1
            return
        if len(self.distinct) < MAX_DISTINCT:
            self.distinct.add(value)
        else:
            self.distinct_overflow = True
        if len(self.examples) < 3 and value not in self.examples:
            self.examples.append(value)
        if INTEGER.match(value) or NUMBER.match(value):
            number = float(value)
            if not math.isfinite(number):
                self.kinds["text"] += 1
                return
            self.kinds["integer" if INTEGER.match(value) else "number"] += 1
            self.total += number
            self.minimum = number if self.minimum is None else min(self.minimum, number)
            self.maximum = number if self.maximum is None else max(self.maximum, number)
        elif value.lower() in BOOLEANS:
            self.kinds["boolean"] += 1
        elif DATE.match(value):
            self.kinds["date"] += 1
            self.first_date = value if self.first_date is None else min(self.first_date, value)
            self.last_date = value if self.last_date is None else max(self.last_date, value)
        else:
            self.kinds["text"] += 1

    def summary(self):
        present = self.count - self.missing
        numeric = self.kinds["integer"] + self.kinds["number"]
        if present == 0:
            kind = "empty"
        elif numeric == present:
            kind = "integer" if self.kinds["number"] == 0 else "number"
        elif self.kinds["boolean"] == present:
            kind = "boolean"
        elif self.kinds["date"] == present:
            kind = "date"
        else:
            kind = "text"
        out = {
            "name": self.name,
            "type": kind,
            "count": self.count,
            "missing": self.missing,
            "distinct": len(self.distinct),
            "distinctCapped": self.distinct_overflow,
            "examples": self.examples,
        }
        if kind in ("integer", "number"):
            out["min"] = number_out(self.minimum)
            out["max"] = number_out(self.maximum)
            out["mean"] = round(self.total / present, 6)
        elif kind == "date":
            out["min"] = self.first_date
            out["max"] = self.last_date
        elif kind == "text" and numeric > 0:
            # A mostly numeric column with a few stray values is worth pointing out.
            out["note"] = "%d of %d values are numbers; the rest are text" % (numeric, present)
        return out


def number_out(value):
    return int(value) if value is not None and value.is_integer() and abs(value) < 2**53 else value


def summarize_csv(input, context):
    path = inside_workspace(context, input["path"])
    max_rows = input.get("maxRows", 1000000)
    with open(path, "r", encoding=input.get("encoding", "utf-8-sig"), newline="") as handle:
        sample = handle.read(64 * 1024)
        handle.seek(0)
        delimiter = input.get("delimiter")
        if delimiter is None:
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
            except csv.Error:
                delimiter = ","
        reader = csv.reader(handle, delimiter=delimiter)
        try:
            header = next(reader)
        except StopIteration:
            raise ToolError('"%s" is empty: there is no header row.' % input["path"])
        names = [name.strip() or "column_%d" % (i + 1) for i, name in enumerate(header)]
        columns = [Column(name) for name in names]
        rows = 0
        ragged = 0
        truncated = False
        try:
            for row in reader:
                if not row:
                    continue
                if rows >= max_rows:
                    truncated = True
                    break
                rows += 1
                if len(row) != len(columns):
                    ragged += 1
                for column, value in zip(columns, row + [""] * (len(columns) - len(row))):
                    column.add(value)
        except csv.Error as error:
            raise ToolError("Line %d of %s is not valid CSV: %s." % (reader.line_num, input["path"], error))
    return {
        "path": input["path"],
        "delimiter": delimiter,
        "rows": rows,
        "truncated": truncated,
        "raggedRows": ragged,
        "columns": [column.summary() for column in columns],
    }


if __name__ == "__main__":
    try:
        serve_tools({"summarize_csv": summarize_csv})
    except UnicodeDecodeError as error:
        sys.stdout.write('{"type":"error","message":"The file is not in the expected encoding; pass \\"encoding\\", e.g. \\"latin-1\\"."}\n')
