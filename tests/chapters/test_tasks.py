"""Tasks and grading, with scripted runs (no model)."""

import json

from kitchen.harness.loop import run_harness
from kitchen.model.scripted import ScriptedModel
from kitchen.chapters.tasks import answer_contains, grade, load_tasks


def call(name, **arguments):
    return json.dumps({"name": name, "arguments": arguments})


def test_every_task_has_tools_and_a_checkable_answer():
    single, multi = load_tasks("single"), load_tasks("multi")
    assert len(single) >= 20 and len(multi) >= 3
    names = {n for t in single for n in t.tools}
    assert names == {"calculator", "search_rhymes", "count_words", "fetch_page", "browse_files"}
    for task in single + multi:
        assert task.functions and all(v for v in task.expected_values())


def test_expected_values_come_from_the_tools():
    sheep = load_tasks("multi")[0]
    assert sheep.expected_values() == ["35"]
    assert load_tasks("single")[0].expected_values() == ["7006652"]


def test_answer_contains_ignores_commas_and_case():
    assert answer_contains("It is 7,006,652.", ["7006652"])
    assert answer_contains("the rhyme BAA, BAA, BLACK SHEEP", ["Baa, Baa, Black Sheep"])
    assert not answer_contains("It is 7,000,000.", ["7006652"])


def test_a_completed_two_call_task():
    task = load_tasks("multi")[0]
    replies = [call("search_rhymes", query="sheep"), call("count_words", rhyme_title="Baa, Baa, Black Sheep"),
               "Baa, Baa, Black Sheep has 35 words."]
    trace = run_harness(ScriptedModel(replies), task.request, task.functions)
    g = grade(task, trace)
    assert g.called and g.right_tool and g.valid and g.answer_right and g.completed
    assert g.tools_used == ["search_rhymes", "count_words"]


def test_an_invented_second_step_is_not_completed():
    task = load_tasks("multi")[0]
    replies = [call("search_rhymes", query="sheep"), "Baa, Baa, Black Sheep has 35 words."]
    g = grade(task, run_harness(ScriptedModel(replies), task.request, task.functions))
    assert g.answer_right and not g.completed  # right by luck, but count_words never ran


def test_wrong_tool_and_invalid_arguments():
    task = load_tasks("single")[0]
    g = grade(task, run_harness(ScriptedModel([call("calculator", expr="1"), "no idea"]), task.request,
                                task.functions))
    assert g.called and g.right_tool and not g.valid and not g.answer_right
    g = grade(task, run_harness(ScriptedModel(["7006652, I think."]), task.request, task.functions))
    assert not g.called and g.answer_right and not g.completed
