"""The tool side of the spec §7 wire protocol, for python tools. Copy this file into your capability.

    host -> tool  {"type":"call","tool":"name","input":{...},"context":{...}}   (one line on stdin)
    tool -> host  {"type":"result","output":{...}}  or  {"type":"error","message":"..."}

serve_tools({"tool_name": handler}) reads the call, runs handler(input, context) and answers.
Raise ToolError for a message meant for the user; anything else is reported as an unexpected
failure. Print nothing else on stdout: log to sys.stderr. Standard library only.
"""
import json
import sys


class ToolError(Exception):
    """An error whose message is shown to the user as it is."""


def _send(message):
    sys.stdout.write(json.dumps(message, allow_nan=False) + "\n")
    sys.stdout.flush()


def serve_tools(handlers):
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            message = json.loads(line)
        except ValueError:
            _send({"type": "error", "message": "The host sent a line that is not JSON."})
            return
        if message.get("type") != "call":
            continue
        handler = handlers.get(message.get("tool"))
        if handler is None:
            _send({"type": "error", "message": 'This program has no tool named "%s".' % message.get("tool")})
            return
        try:
            output = handler(message.get("input") or {}, message.get("context") or {})
        except ToolError as error:
            _send({"type": "error", "message": str(error)})
        except Exception as error:  # report, do not crash with a traceback on stdout
            _send({"type": "error", "message": "Unexpected failure: %s: %s" % (type(error).__name__, error)})
        else:
            _send({"type": "result", "output": output})
        return
    _send({"type": "error", "message": "The host closed stdin without sending a call."})
