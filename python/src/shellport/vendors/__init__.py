"""Turn a vendor model's reply into the next request's input, running its tool calls.

One module per vendor API, each with a sync and an async function that take
the session the tools run in and the model's reply (the SDK's object or the
same thing as plain dicts) and return the items to send back:

- ``shellport.vendors.anthropic.tool_results(session, message)``: the
  Messages API's ``tool_use`` blocks become ``tool_result`` blocks.
- ``shellport.vendors.openai.outputs(session, response)``: the Responses
  API's ``shell_call``, ``apply_patch_call`` and ``function_call`` items
  become ``shell_call_output``, ``apply_patch_call_output`` and
  ``function_call_output`` items.

Neither needs the vendor's SDK installed; with it, pass its objects as they
come. Pair them with the runtime's own declarations
(``rt.tools(format="anthropic")``, ``rt.tools(format="openai-responses")``)
and the vendors' profiles (``{"profile": "anthropic"}``, ``{"profile":
"openai"}``), whose tools are the ones the models were trained on::

    import anthropic, shellport
    from shellport.vendors.anthropic import tool_results

    client = anthropic.Anthropic()
    with shellport.Runtime({"profile": "anthropic"}) as rt, rt.session("/abs/repo") as s:
        messages = [{"role": "user", "content": "Make the tests pass."}]
        while True:
            reply = client.messages.create(model="claude-sonnet-4-6", max_tokens=4096,
                                           tools=rt.tools(format="anthropic"), messages=messages)
            messages.append({"role": "assistant", "content": reply.content})
            if reply.stop_reason != "tool_use":
                break
            messages.append({"role": "user", "content": tool_results(s, reply)})
"""

from . import anthropic, openai

__all__ = ["anthropic", "openai"]
