"""LLM Kitchen · Tools: the helper package behind the notebooks.

The ideas each chapter teaches are typed out in the notebooks; this package holds the plumbing.
Each part, and the chapters that use it (tests/test_structure.py keeps the imports free of cycles):

Settings and data
    settings        the environment variables, read in one place                  (all)
    paths           where `data/` is                                              (all)
Models: a chat model behind one interface
    replies         Token, Generation, Detokenizer: what a reply is made of       (01, 03)
    chat_model      the ChatModel protocol, ModelInfo, the chat-template base     (all)
    generation      the greedy decode loop, token by token, with a KV cache       (01, 03)
    live_model      a transformers model running here                             (all)
    cpu             CPU features and the default dtype                            (all)
    int8            the int8 fast mode                                            (06)
    onednn          float32 linear layers on oneDNN rather than MKL               (all)
    int8_decode     int8-decode: float32 pre-fill, int8 weight copies to decode   (all)
    packs           the offline model packs: found, assembled, verified           (all)
    choice          which tier and source runs, and why                           (all, 06's picker)
    loading         pack and hub weights loaded and cached                        (all)
    tokenizer       the tokenizer in data/, for models without weights           (replay, tests)
    recordings, recording, replay   recorded runs: the format, the recorder, replay (all)
    scripted        fixed replies, to show each path of the harness               (03, 05)
    models          load_model(): the one call a notebook makes                   (all)
Tools and the text around them
    schemas         tool schemas from Python functions; chat-template and MCP views (02)
    tools/          the five toy tools                                            (01–06)
    refusals        every refusal a toolbox or the server writes                  (03, 05)
    toolbox         the one tool policy, and local tools                          (03)
    prompts         a rendered prompt's parts and costs                           (02)
    parse_basic     the plain parse: tags, json.loads, a message per failure      (04)
    parsing/        the robust parser the harness uses                            (03, 04)
    schema_text     schemas written as prompt text                                (04)
    protocols       native and prompt-based tool calling                          (03, 04)
    grammar         call grammars from the tool schemas, for each tool_choice     (07)
    constraint      a grammar's mask over the next token (llguidance)             (07)
    harness         the loop, with tool_choice                                    (01, 03–07)
    mcp/            a real MCP server and client, and the wire between            (05)
Each chapter's own pieces
    arithmetic (01), descriptions (02), tasks (03), lab and sweep (06), experiments (scripts),
    stories/ (every chapter's claims about what a live model does)
Views
    display (HTML), plots (matplotlib), widgets (ipywidgets)
"""

__version__ = "0.1.0"
