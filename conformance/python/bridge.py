"""Drives the official Python SDK for the conformance harness.

One bridge process stands for one SDK client. It reads commands as JSON lines on stdin and writes
replies, session events and callbacks as JSON lines on its original stdout (the SDK's own output
goes to stderr). The harness (`conformance/lib/python-driver.mjs`) answers the callbacks: the
permission decision, the custom tools' results and the user's answers come from the scenario, as
with the JavaScript SDKs.

Commands: {"id", "op": "start", "cliPath", "env", "cwd", "token"}, {"id", "op": "stop"},
{"id", "op": "create_session" | "resume_session", "session", "sessionId"?, "config"},
{"id", "op": "send", "session", "options"}, {"id", "op": "abort", "session"},
{"id", "op": "set_mode", "session", "mode"}. Replies: {"id", "result"} or {"id", "error"}.
Out of band: {"event", "session"}, {"callback", "kind", "session", "payload"}; the harness answers
a callback with {"callbackReply", "result"} or {"callbackReply", "error"}.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from typing import Any

from copilot import CopilotClient, RuntimeConnection
from copilot.generated.rpc import ModeSetRequest, PermissionDecisionApproveOnce, PermissionDecisionReject, SessionMode
from copilot.generated.session_events import session_event_to_dict
from copilot.tools import Tool, ToolInvocation, ToolResult

# The protocol keeps the original stdout; everything else printed goes to stderr.
protocol_out = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr


def write_message(message: dict[str, Any]) -> None:
    protocol_out.write(json.dumps(message, default=str) + "\n")
    protocol_out.flush()


def to_plain(value: Any) -> Any:
    """A JSON-ready form of an SDK value (its own `to_dict` where it has one)."""
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    return value


class Bridge:
    def __init__(self) -> None:
        self.client: CopilotClient | None = None
        self.sessions: dict[str, Any] = {}
        self.pending_callbacks: dict[int, asyncio.Future[Any]] = {}
        self.next_callback = 0

    async def call_back(self, kind: str, session: str, payload: Any) -> Any:
        """Asks the harness (the scenario) and waits for its answer."""
        callback_id = self.next_callback
        self.next_callback += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending_callbacks[callback_id] = future
        write_message({"callback": callback_id, "kind": kind, "session": session, "payload": payload})
        return await future

    def settle_callback(self, message: dict[str, Any]) -> None:
        future = self.pending_callbacks.pop(message["callbackReply"], None)
        if future is None or future.done():
            return
        if "error" in message:
            future.set_exception(RuntimeError(message["error"]))
        else:
            future.set_result(message.get("result"))

    def session_options(self, label: str, config: dict[str, Any]) -> dict[str, Any]:
        async def on_permission_request(request: Any, _invocation: Any) -> Any:
            decision = await self.call_back("permission", label, to_plain(request))
            if decision.get("kind") == "reject":
                return PermissionDecisionReject(feedback=decision.get("feedback"))
            return PermissionDecisionApproveOnce()

        def on_event(event: Any) -> None:
            write_message({"event": session_event_to_dict(event), "session": label})

        options: dict[str, Any] = {
            "on_permission_request": on_permission_request,
            "on_event": on_event,
            "model": config.get("model"),
            "working_directory": config.get("workingDirectory"),
        }
        if config.get("streaming") is not None:
            options["streaming"] = config["streaming"]
        if config.get("userInput"):

            async def on_user_input_request(request: Any, _invocation: Any) -> Any:
                return await self.call_back("user_input", label, to_plain(request))

            options["on_user_input_request"] = on_user_input_request
        tools = [self.tool(label, spec) for spec in config.get("tools", [])]
        if tools:
            options["tools"] = tools
        return options

    def tool(self, label: str, spec: dict[str, Any]) -> Tool:
        async def handler(invocation: ToolInvocation) -> ToolResult:
            result = await self.call_back("tool", label, {"name": spec["name"], "arguments": invocation.arguments, "toolCallId": invocation.tool_call_id})
            return ToolResult(text_result_for_llm=result if isinstance(result, str) else json.dumps(result))

        return Tool(name=spec["name"], description=spec["description"], parameters=spec.get("parameters"), handler=handler)

    async def run(self, message: dict[str, Any]) -> Any:
        operation = message["op"]
        if operation == "start":
            self.client = CopilotClient(
                connection=RuntimeConnection.for_stdio(path=message["cliPath"]),
                working_directory=message["cwd"],
                env=message["env"],
                github_token=message["token"],
                log_level="error",
            )
            await self.client.start()
            return None
        if self.client is None:
            raise RuntimeError(f"{operation}: the client is not started")
        if operation == "stop":
            await self.client.stop()
            return None
        if operation == "force_stop":
            await self.client.force_stop()
            return None
        if operation == "create_session":
            session = await self.client.create_session(**self.session_options(message["session"], message["config"]))
            self.sessions[message["session"]] = session
            return {"sessionId": session.session_id}
        if operation == "resume_session":
            session = await self.client.resume_session(message["sessionId"], **self.session_options(message["session"], message["config"]))
            self.sessions[message["session"]] = session
            return {"sessionId": session.session_id}
        session = self.sessions[message["session"]]
        if operation == "send":
            options = message["options"]
            return await session.send(options["prompt"], attachments=options.get("attachments"))
        if operation == "abort":
            await session.abort()
            return None
        if operation == "set_mode":
            await session.rpc.mode.set(ModeSetRequest(mode=SessionMode(message["mode"])))
            return None
        raise RuntimeError(f"unknown operation {operation!r}")

    async def answer(self, message: dict[str, Any]) -> None:
        try:
            result = await self.run(message)
            write_message({"id": message["id"], "result": result})
        except Exception as error:  # every failure goes back to the harness as text
            traceback.print_exc(file=sys.stderr)
            write_message({"id": message["id"], "error": f"{type(error).__name__}: {error}"})


async def main() -> None:
    bridge = Bridge()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=64 * 1024 * 1024)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    tasks: set[asyncio.Task[None]] = set()
    while True:
        line = await reader.readline()
        if not line:
            break
        message = json.loads(line)
        if "callbackReply" in message:
            bridge.settle_callback(message)
            continue
        task = asyncio.create_task(bridge.answer(message))
        tasks.add(task)
        task.add_done_callback(tasks.discard)
    if bridge.client is not None:
        await bridge.client.force_stop()


if __name__ == "__main__":
    asyncio.run(main())
