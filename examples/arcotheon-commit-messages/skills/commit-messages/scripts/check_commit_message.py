#!/usr/bin/env python3
"""Check a Git commit message against the rules in ../SKILL.md.

Usage:
    python3 check_commit_message.py MESSAGE_FILE
    git log -1 --format=%B | python3 check_commit_message.py

Prints one line per finding ("error: ..." or "warning: ...") and exits 1 when there is an error,
so it also works as a commit-msg hook:  ln -s ../../check_commit_message.py .git/hooks/commit-msg
Standard library only.
"""
import re
import sys

CONVENTIONAL = re.compile(
    r"^(?P<type>feat|fix|docs|style|refactor|perf|test|build|ci|chore|revert)"
    r"(?:\((?P<scope>[^()\s]+)\))?(?P<bang>!)?: (?P<description>.+)$"
)
# Past tense or third person at the start of a subject: "Added", "Fixes", "Updated"...
NOT_IMPERATIVE = re.compile(r"^(?:[a-z]+(?:\([^)]*\))?!?: )?([A-Za-z]+(?:ed|es|ing))\b")
IMPERATIVE_EXCEPTIONS = {"embed", "feed", "need", "speed", "shed", "bring", "string", "ring", "sing", "release", "rename", "remove", "merge", "move", "use", "update", "change", "handle", "close", "enable", "disable", "make", "write", "improve", "raise", "parse", "serve", "ignore", "replace", "resolve"}


def check(message: str) -> list:
    findings = []
    # Git drops comment lines before committing; do the same.
    lines = [line for line in message.splitlines() if not line.startswith("#")]
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or not lines[0].strip():
        return [("error", "the message is empty or starts with a blank line")]
    subject = lines[0]
    if len(subject) > 72:
        findings.append(("error", f"the subject is {len(subject)} characters; keep it to 72 (aim for 50)"))
    elif len(subject) > 50:
        findings.append(("warning", f"the subject is {len(subject)} characters; 50 or fewer reads best"))
    if subject.rstrip().endswith("."):
        findings.append(("error", "the subject ends with a period; drop it"))
    if subject != subject.strip():
        findings.append(("error", "the subject has leading or trailing spaces"))
    match = NOT_IMPERATIVE.match(subject)
    if match and match.group(1).lower() not in IMPERATIVE_EXCEPTIONS:
        findings.append(("warning", f'"{match.group(1)}" does not look imperative; write "Fix", "Add", "Remove" ...'))
    if re.match(r"^(wip|fixup|tmp|stuff|changes?|update)\b\s*$", subject, re.IGNORECASE):
        findings.append(("error", "the subject says nothing about the change; describe what it does"))
    if subject.split(":")[0] in {"feat", "fix"} or re.match(r"^[a-z]+(\(|!|:)", subject):
        if not CONVENTIONAL.match(subject):
            findings.append(("error", 'looks like Conventional Commits but is malformed; use "type(scope): description"'))
    if len(lines) > 1:
        if lines[1].strip():
            findings.append(("error", "put a blank line between the subject and the body"))
        for number, line in enumerate(lines[2:], start=3):
            if len(line) > 72 and not re.match(r"^\s*(https?://|\[\d+\]:)", line):
                findings.append(("warning", f"line {number} is {len(line)} characters; wrap the body at 72"))
    return findings


def main(argv: list) -> int:
    if len(argv) > 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    text = open(argv[1], encoding="utf-8").read() if len(argv) == 2 else sys.stdin.read()
    findings = check(text)
    for level, message in findings:
        print(f"{level}: {message}")
    if not findings:
        print("ok: the message follows the rules")
    return 1 if any(level == "error" for level, _ in findings) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
