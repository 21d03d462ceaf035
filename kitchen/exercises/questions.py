"""The self-check questions of each chapter (see `kitchen.exercises.quiz`).

Each question has one right option, a sentence saying why it is right, and, for every wrong
option, what is wrong with it: the feedback a learner reads after choosing it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Option:
    text: str
    explanation: str = ""  # for a wrong option: why it is wrong


@dataclass(frozen=True)
class Question:
    text: str
    options: tuple[Option, ...]
    right: int
    why: str


def q(text: str, right: str, why: str, *wrong: tuple[str, str], position: int = 0) -> Question:
    """A question whose right option sits at `position` among the wrong ones."""
    options = [Option(t, e) for t, e in wrong]
    options.insert(position, Option(right))
    return Question(text, tuple(options), position, why)


QUESTIONS: dict[str, list[Question]] = {
    "01": [
        q("Why does the 0.5B pack get 1234 × 5678 wrong, when a calculator never does?",
          "It writes the product one token at a time, each digit a prediction, with nothing carried except the text.",
          "The model predicts digits from patterns; long multiplication needs many exact steps, and one wrong "
          "digit is never taken back.",
          ("Its vocabulary has no tokens for large numbers.",
           "It can write any number: each digit is a token of its own. The trouble is choosing them."),
          ("It has never seen a multiplication.",
           "It has seen plenty. It still predicts the digits rather than computing them."), position=1),
        q("With the calculator listed, what does the model do?",
          "It writes a call as text; the harness runs the calculator and hands back the result, which the model copies.",
          "The model copies; the tool computes.",
          ("It runs the calculator inside the network.", "The model only writes text. Nothing runs until the "
                                                         "harness reads that text."),
          ("It works out the product, then checks it with the tool.", "It never works it out: it writes the "
                                                                      "expression and copies the result.")),
        q("What does greedy decoding do at each step?",
          "It writes the most likely token, so the same prompt gives the same reply.",
          "That is why every run in this series can be repeated, recorded and replayed.",
          ("It looks ahead for the best whole answer.", "It never looks ahead: each step takes the best token "
                                                        "now, so an early wrong digit stays."),
          ("It picks a token at random, weighted by probability.", "That is sampling. The series decodes "
                                                                    "greedily so that runs repeat."), position=2),
    ],
    "02": [
        q("Where does the model read the tools?",
          "In its prompt: the chat template writes each schema as JSON into the system turn.",
          "There is only text. `model.render` shows exactly where the schemas go.",
          ("Through a separate channel next to the prompt.", "There is no other channel: render the prompt "
                                                             "and the schemas are there, between <tools> tags."),
          ("Nowhere: it guesses the tool names.", "It does not guess: the names, descriptions and parameters "
                                                  "are all in the prompt.")),
        q("A parameter has a default in Python, and its description does not mention it. What does the model know "
          "about the default?",
          "Nothing: the schema only leaves the parameter out of `required`.",
          "If the model should know, the description has to say it.",
          ("The default value, which the schema carries.", "The schema built from the signature has no "
                                                           "`default`: look at tool_schema's output."),
          ("That the parameter must be given.", "It is the opposite: a default makes it optional."), position=1),
        q("What does listing one more tool cost?",
          "Its schema's tokens, in every prompt of every model call, whether it is used or not.",
          "Pre-fill reads the whole prompt at every call, the tool list included.",
          ("Nothing unless it is called.", "The schema sits in the system turn of every prompt: each call pays "
                                           "for reading it."),
          ("A few tokens once, when the conversation starts.", "The prompt is rendered again for every model "
                                                               "call, with the whole tool list."), position=2),
        q("A description gives an example value (\"e.g. Humpty Dumpty\"). What can happen?",
          "The example can end up in a call as an argument, when the request gives no value.",
          "In this chapter both packs copied an example into their call.",
          ("Nothing: models ignore examples in descriptions.", "The chapter's live runs show otherwise: the "
                                                               "example became an argument."),
          ("The harness rejects the call.", "The call is well formed, so nothing rejects it: the value is just "
                                            "not the user's.")),
    ],
    "03": [
        q("When does the harness loop stop?",
          "When a reply holds no call (that reply is the answer), or when it reaches its cap.",
          "Without the cap, a model that keeps calling would keep the loop going for ever.",
          ("As soon as a tool returns.", "After a tool runs, the model is called again to read the result."),
          ("After one call.", "Tasks that need two tools need two calls; the loop goes on until an answer.")),
        q("The model calls a tool that does not exist. What should the harness do?",
          "Feed back an error that names the tool and the tools that exist, then call the model again.",
          "An error is something the model can read and act on: chapter 03's 1.5B run fixed its call after one.",
          ("Raise an exception.", "A crash ends the run and loses the conversation; nothing can be fixed."),
          ("Skip it silently.", "The model would wait for a result that never comes, or invent one."), position=1),
        q("Why does generation stop at `</tool_call>`?",
          "A call is complete only when its closing tag arrives, and stopping there keeps the model from writing "
          "the result itself.",
          "The harness acts on a whole call and gives back the real result.",
          ("To save memory.", "Memory is not the reason: the text after a call would be the model's guess at the "
                              "result."),
          ("Because the model cannot write more than one call.", "It can: with several calls allowed, the "
                                                                 "harness waits for the end of the turn instead."),
          position=2),
        q("What does reusing the KV cache between steps save?",
          "Pre-filling the part of the prompt already read at the previous step.",
          "Each step re-sends the whole conversation; only the new part has to be read.",
          ("The time to write the new tokens.", "Each new token still costs one step; only re-reading the old "
                                                "prompt is saved."),
          ("The tool's running time.", "The cache is the model's; the tools run as before.")),
    ],
    "04": [
        q("Without native tool calling, what makes some text a call?",
          "The format the prompt asks for, and the parser that looks for it: both are yours to choose.",
          "That pair, with how results come back, is what the chapter calls a protocol.",
          ("The model's reserved <tool_call> tokens.", "Those are the native format. A prompt-based protocol uses "
                                                       "plain text the prompt describes."),
          ("Any JSON in the reply.", "JSON can be an example or an answer. The protocol decides what counts.")),
        q("What must a parser of model text always do?",
          "Finish, fast and without raising, whatever the text: what it cannot read becomes an error to feed back.",
          "Model text is untrusted input, and small models write near-misses.",
          ("Reject anything slightly malformed.", "Then most small-model calls are lost; a robust parser reads "
                                                  "what it can and reports the rest."),
          ("Repair every call it finds.", "Some text cannot be repaired without guessing; a clear error is "
                                          "better than a wrong call."), position=1),
        q("What is the silent hallucination?",
          "The model writes a tool's result itself instead of calling the tool, and nothing in the text says so.",
          "The harness sees no call, so the invented result reaches the user as an answer.",
          ("A call to a tool that does not exist.", "That one is loud: the harness sees the name and says it "
                                                    "does not exist."),
          ("A call with wrong arguments.", "The schema check catches those, and the error goes back to the "
                                           "model."), position=2),
    ],
    "05": [
        q("What does the model see of MCP?",
          "Nothing: it reads schemas in its prompt and writes calls as text; the harness speaks MCP.",
          "MCP connects the harness to tool servers. The model's side does not change.",
          ("The JSON-RPC frames.", "The frames go between the client and the server; the model never reads them."),
          ("A special MCP token.", "There is none: the chat template and the call format are the same as "
                                   "before.")),
        q("Why is `user_id` injected by the application rather than filled in by the model?",
          "So that a model talked into it cannot act for another user.",
          "The application knows who is signed in; the model only knows what it has read.",
          ("To save tokens.", "It saves a few, but the reason is who decides."),
          ("Because the model cannot write ids.", "It can write any text, and that is the danger."), position=2),
        q("What makes a JSON-RPC notification different from a request?",
          "It has no id, and gets no answer.",
          "notifications/initialized and notifications/tools/list_changed are two.",
          ("Only the server sends them.", "Both sides do: the client's notifications/initialized is one."),
          ("It carries an error.", "Errors are answers to requests, with the request's id."), position=1),
        q("The server stalls on a call. What should the harness do?",
          "Give up after a timeout and feed an error back, so the loop still ends.",
          "A dead or stalled server becomes a tool error, never a hung cell.",
          ("Wait as long as it takes.", "Then one stuck server hangs the whole conversation."),
          ("Restart the whole conversation.", "The conversation is fine; only the call failed, and the model "
                                              "can be told.")),
    ],
    "06": [
        q("Tools off, why does accuracy fall as the numbers get longer?",
          "Each extra digit adds steps that must all come out exactly right, one token at a time.",
          "In the committed sweep the 0.5B pack got every 1-digit product right and none from 3 digits up.",
          ("The prompt gets too long.", "The prompts differ by a few tokens; the work the answer needs grows "
                                        "much faster."),
          ("The model was told not to multiply.", "It tries every time; the answers are wrong, not missing.")),
        q("A reply used its whole token budget. How is it graded?",
          "As cut off: the number it was writing when it was stopped is not its answer.",
          "Grading by the last number would count half-written numbers.",
          ("By its last number.", "That number was still being written when the budget ran out."),
          ("As right if any number in it is right.", "Then a reply listing many numbers could pass by luck."),
          position=1),
        q("What do the bands around each accuracy show?",
          "Where the true accuracy plausibly lies, given how few problems (20) each point has.",
          "With 20 problems, 50% could well be anything from about 30% to 70%.",
          ("The spread of the model's answers.", "They come from the count of right answers alone, not from "
                                                 "the answers' values."),
          ("The difference between the two packs.", "Each band belongs to one point of one pack."), position=2),
    ],
    "07": [
        q("What does a grammar guarantee?",
          "The form of the reply: a call under the grammar parses and fits the schema.",
          "It fixes form, not choice.",
          ("The right tool and the right values.", "The chapter's runs still picked wrong values: a grammar "
                                                   "cannot know what the user meant."),
          ("A better answer after the tool runs.", "The grammar holds only the replies it is given; the answer "
                                                   "is free text.")),
        q("What does `tool_choice=\"required\"` do with a question no tool answers?",
          "It forces a call anyway.",
          "Under \"required\" the first token already has to open a call; use \"auto\" where declining is right.",
          ("It lets the model answer in text.", "That is \"auto\"; under \"required\" text is not allowed."),
          ("It raises an error.", "Nothing checks the question: the grammar simply allows only calls."),
          position=1),
        q("Why does the mask cost little next to the model?",
          "It is computed once per token, beside a forward pass that takes far longer.",
          "The chapter measured it at a few percent of a decode step.",
          ("It is computed once per reply.", "The grammar is compiled once; the mask is computed at every step."),
          ("It runs on the GPU.", "Everything here runs on the CPU."), position=2),
    ],
    "08": [
        q("How does BFCL's AST checker decide that a call is valid?",
          "It compares the call's function, argument types and values with lists of accepted answers, without "
          "running it.",
          "That is why the same checker can grade thousands of functions that do not exist.",
          ("It runs the function and checks the result.", "These categories never run anything; BFCL's "
                                                          "executable categories do."),
          ("It compares the reply's text with a reference text.", "It reads the call as a syntax tree, so "
                                                                  "argument order and spacing do not matter.")),
        q("In the irrelevance category, what is the right reply?",
          "No call at all.",
          "None of the offered functions fits the question, so any call is wrong.",
          ("A call to the closest function.", "Closest is not right: the checker counts any call as a failure "
                                              "there."),
          ("A call with empty arguments.", "Still a call, and so still a failure."), position=1),
        q("Why are our rows and the paper's rows not the same experiment?",
          "Our models are the Coder variants, quantized, run through this series' harness; the paper ran the "
          "canonical instruct models with BFCL's own handlers.",
          "The questions and the checker are the same package; the model, its weights and the way it is asked "
          "differ.",
          ("The questions differ.", "They come from the same bfcl-eval package, read as installed."),
          ("The paper graded by hand.", "Both are graded by the same AST checker."), position=2),
    ],
    "09": [
        q("What does finish_reason \"tool_calls\" (stop_reason \"tool_use\") tell the application?",
          "The reply is a request for tools: run them, send the results back by id, and call the model again.",
          "The model has not answered yet; the loop goes on until the reply ends another way.",
          ("That the server has already run the tools.", "No API runs a client's tools: the calls come back to "
                                                         "the application, which runs them."),
          ("That the reply was cut off.", "That is \"length\" (\"max_tokens\"): the reply hit its token cap.")),
        q("Why does each tool call carry an id?",
          "So each result can be linked to the call it answers, whatever order the results come back in.",
          "Qwen's template has no ids: the server lines the results up in the calls' order before the model reads "
          "them. The id is the API's bookkeeping.",
          ("The model reads the id to know which tool ran.", "The model never sees it: the rendered prompt has no "
                                                             "ids at all."),
          ("It tells the server which tool to run.", "The server runs no tool; the name says which tool."),
          position=1),
        q("A stream sends a call's arguments in fragments. When can the client parse them?",
          "When the call's block is complete: glue the fragments, then json.loads once.",
          "A fragment such as '{\"expr' is not JSON on its own; a Bedrock client parses at contentBlockStop, when the block ends.",
          ("After every fragment.", "Most fragments are not valid JSON on their own, so a parse would fail."),
          ("Never: the arguments arrive as an object.", "In OpenAI's shape they are JSON text, in every reply and "
                                                        "every stream."), position=2),
        q("What does \"strict\": true change on this chapter's server?",
          "The reply is decoded under chapter 07's grammar built from the schema, so a call that finishes validates.",
          "The same mask as chapter 07: the model can only write tokens the schema allows.",
          ("The server checks the call after the model wrote it and asks again if it is wrong.",
           "Nothing is checked afterwards: the grammar stops a wrong token before it is written."),
          ("The model is told in the prompt to follow the schema more closely.",
           "The prompt is the same: the difference is in which tokens the decoder may pick.")),
    ],
}
