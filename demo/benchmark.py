"""Demo benchmark: a few tasks written for L2 Annot (not taken from L2-Bench, whose items must
not be republished), published through the review services, with invented model responses.

The model names and their answers are made up for demonstration; they are not outputs of real
models. Safe to run again: tasks are matched by key, criteria by wording, responses by id.
"""

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext

from rubrics import services
from rubrics.models import Criterion, Task
from rubrics.seedfile import read_universal_criteria
from rubrics.services import TurnSpec
from taxonomy.models import ContextVariable, Framework, SubCompetency

MODELS = {
    "orion": ("orion-tutor-2", "Orion Labs", "2025-11"),
    "kestrel": ("kestrel-large", "Kestrel AI", "1.3"),
    "basalt": ("basalt-chat-7b", "Basalt (open weights)", "7b-instruct"),
}

SYSTEM_PROMPT = (
    "You are an experienced teacher of English as a foreign language who supports other "
    "teachers. Answer practically and briefly."
)

CONSENSUS: dict[str, list[tuple[str, int]]] = {
    "02a": [
        ("Finds out the learner's own goals and the situations in which they use English.", 5),
        ("Gathers a speaking sample to compare performance with the placement result.", 4),
        ("Labels the learner's level from a single test result without further evidence.", -3),
    ],
    "03a": [
        ("Instructions are short, in simple language, and given one step at a time.", 5),
        ("Models or demonstrates the activity before learners start.", 4),
        ("Checks understanding with targeted questions, not 'Do you understand?'.", 4),
    ],
    "03c": [
        ("Keeps the conversation going with open questions suited to the learner's level.", 5),
        ("Corrects errors through recasts without breaking the flow of talk.", 4),
        ("Dominates the conversation with long turns that leave the learner little to say.", -3),
    ],
}


@dataclass(frozen=True)
class DemoTask:
    key: str
    sub_competency: str
    instruction: str
    reference_answer: str
    context: dict[str, Any]
    criteria: list[tuple[str, int]]
    difficulty: str = "medium"
    task_type: str = Task.TaskType.OPEN_ENDED
    resources: list[tuple[str, str]] = field(default_factory=list)
    exclusions: dict[str, str] = field(default_factory=dict)
    responses: dict[str, str | list[tuple[str, str]]] = field(default_factory=dict)
    # Graded on each tutor turn of a dialogue: (wording, weight, turn rule, share or None).
    turn_criteria: list[tuple[str, int, str, int | None]] = field(default_factory=list)
    language: str = "en"  # the target language, an ISO 639-1 code
    # Rated on a scale: (wording, weight, {level: label}), the levels from lowest to highest.
    ordinal_criteria: list[tuple[str, int, dict[int | str, str]]] = field(default_factory=list)
    system_prompt: str = ""  # SYSTEM_PROMPT when empty


TASKS = [
    DemoTask(
        key="901",
        sub_competency="02a",
        instruction=(
            "I have just started a one-to-one online course with a hotel receptionist who wants "
            "to handle guest complaints in English. Her placement test says B1, but she seems "
            "much less confident when speaking. How could I use our first 20-minute session to "
            "find out what she really needs, and what should I listen for?"
        ),
        reference_answer=(
            "Spend the first five minutes on her job: which guests she deals with, which "
            "situations go wrong in English, what she would like to say but cannot. Then run a "
            "short role-play: you are an annoyed guest whose room is not ready. Listen for how "
            "she apologises, asks questions and offers solutions; note hesitation, repair "
            "strategies and the phrases she lacks rather than every grammar slip. Finish by "
            "agreeing two or three priorities together. Treat the B1 result as one piece of "
            "evidence: receptive tests often overestimate speaking."
        ),
        context={
            "learner_age": "adults (26-64)",
            "cefr_level": "B1",
            "learning_purpose": "work / professional",
            "class_configuration": "one-to-one",
            "delivery_mode": "online synchronous",
            "session_length": 20,
        },
        criteria=[
            ("Suggests a short guest-complaint role-play to observe her spoken English.", 4),
            ("Names concrete features to listen for, such as apologies and repair strategies.", 3),
            ("Keeps the plan within the 20 minutes available.", 2),
            ("Spends most of the session on a written grammar test.", -2),
        ],
        exclusions={"03u1": "The learner reads and writes the Latin script fluently."},
        responses={
            "orion": (
                "**Minutes 0-5:** ask about her shifts and the complaints she hears most.\n\n"
                "**Minutes 5-15:** role-play a guest whose room is not ready. Listen for "
                "apologies, questions that clarify the problem, and how she recovers when stuck."
                "\n\n**Minutes 15-20:** agree on two priorities together."
            ),
            "kestrel": (
                "Give her the B1 grammar test again to confirm her level, then teach the "
                "second conditional, which receptionists need for offers."
            ),
            "basalt": (
                "Chat about her job first, then act as an angry guest for a few minutes. "
                "Note the phrases she is missing. A placement test does not show speaking "
                "confidence, so trust what you hear."
            ),
        },
    ),
    DemoTask(
        key="902",
        sub_competency="03a",
        instruction=(
            "Write the instructions I will say to my class of 35 twelve-year-olds (A1) before a "
            "pair-work information-gap activity about classroom objects, and add three "
            "concept-checking questions. We have no projector and the room is crowded."
        ),
        reference_answer=(
            "\"Work with your partner. You have card A. Your partner has card B. Don't show "
            "your card! Ask: 'Where is the ruler?' Listen and draw.\" Demonstrate with one "
            "strong student at the front, holding up the cards. Pairs: the student next to you. "
            "Checking questions: 'Do you show your card?' (No.) 'Do you ask or write?' (Ask.) "
            "'Who do you work with?' (My partner.)"
        ),
        context={
            "learner_age": "teenagers (12-17)",
            "cefr_level": "A1",
            "class_size": 35,
            "class_configuration": "large class",
            "setting_type": "state school",
            "resource_projector": "not available",
        },
        criteria=[
            ("Concept-checking questions can be answered in a word or with yes/no at A1.", 3),
            ("Forms pairs without asking learners to move furniture in a crowded room.", 2),
            ("Uses teacher terms such as 'information gap' when speaking to the learners.", -2),
        ],
        difficulty="easy",
        task_type=Task.TaskType.STRUCTURED,
        resources=[
            (
                "Picture cards",
                "| Card A | Card B |\n|---|---|\n| ruler: on the desk | ruler: ? |\n"
                "| bag: ? | bag: under the chair |",
            )
        ],
        responses={
            "orion": (
                "1. Work with your partner.\n2. Don't show your card.\n3. Ask: *Where is the "
                "bag?*\n\nShow it with a student first. CCQs: *Do you show your card?* (No) "
                "*Do you ask?* (Yes) *Who is your partner?* (Name)"
            ),
            "kestrel": (
                "Today we'll do an information-gap activity, so please sit in groups of four, "
                "move the desks together, and use the projector slide to check your answers. "
                "Do you understand?"
            ),
            "basalt": (
                "Say: *Partner A, partner B. Don't show! Ask and answer.* Hold up both cards and "
                "do one question with a student. Ask: *Show your card? No!* "
                "<script>alert('demo: this must be shown as text')</script>"
            ),
        },
    ),
    DemoTask(
        key="903",
        sub_competency="03c",
        instruction=(
            "Be a friendly conversation partner for a B1 learner who wants to practise small "
            "talk before a careers fair. Keep your turns short and correct mistakes gently "
            "by recasting them."
        ),
        reference_answer=(
            "Open with a simple question about the fair, ask follow-ups about the learner's "
            "studies and hopes, recast errors naturally ('Oh, you *went* to the fair last "
            "year?'), offer one or two phrases for introducing oneself, and keep each turn to "
            "one or two sentences so the learner does most of the talking."
        ),
        context={
            "learner_age": "young adults (18-25)",
            "cefr_level": "B1",
            "learning_purpose": "work / professional",
            "delivery_mode": "online asynchronous",
        },
        criteria=[
            ("Stays on the topic of the careers fair.", 3),
            ("Offers one or two useful phrases for introducing oneself to an employer.", 2),
        ],
        turn_criteria=[
            ("Keeps this turn to one or two short sentences.", 2, "all", None),
            ("Recasts the learner's error instead of correcting it explicitly.", 3, "share", 50),
            ("Ends the turn with a question that invites the learner to speak.", 2, "any", None),
            (
                "Lectures the learner: a long explanation the learner did not ask for.",
                -2,
                "any",
                None,
            ),
        ],
        responses={
            "orion": [
                ("user", "Hello! I go to careers fair next week."),
                (
                    "assistant",
                    "Oh, you're going to a careers fair next week? Great! Which "
                    "companies do you want to meet?",
                ),
                ("user", "I want meet engineering companies."),
                (
                    "assistant",
                    "You want to meet engineering companies, nice. You could start "
                    "with: *Hi, I'm Ana, I'm studying civil engineering.* Want to try it?",
                ),
            ],
            "kestrel": (
                "Careers fairs are an excellent opportunity. First, research every company, "
                "prepare a two-minute pitch, print twenty CVs, dress formally, and follow up by "
                "email within 48 hours. Also remember that small talk is culturally variable "
                "and that employers value confidence, curiosity and preparation above all."
            ),
            "basalt": [
                ("user", "Hello! I go to careers fair next week."),
                ("assistant", "Hi! Are you excited about the fair? What do you study?"),
                ("user", "I study civil engineering. I am very nervous for talk to them."),
                (
                    "assistant",
                    "The correct form is 'nervous about talking to them', because after a "
                    "preposition English uses the -ing form of the verb; this is a very common "
                    "error for learners at your level, and you should practise it by writing "
                    "ten sentences with 'about' and an -ing verb before the fair.",
                ),
                ("user", "OK. What I say first?"),
                (
                    "assistant",
                    "You could say: *Hi, I'm studying civil engineering. Could you tell me "
                    "about your graduate roles?* Want to try it on me?",
                ),
            ],
        },
    ),
    DemoTask(
        key="904",
        sub_competency="03a",
        language="es",
        system_prompt=(
            "Eres una profesora experimentada de español como lengua extranjera que ayuda a "
            "otros profesores. Responde de forma práctica y breve."
        ),
        instruction=(
            "Doy clase de español a un grupo de ocho adultos de nivel Intermediate Low "
            "(ACTFL) en línea. Mañana "
            "quiero que preparen por parejas una llamada para reservar mesa en un restaurante. "
            "¿Cómo puedo dar las instrucciones de la actividad para que todos sepan qué hacer?"
        ),
        reference_answer=(
            "Dar las instrucciones en frases cortas, una a una, en español sencillo y con apoyo "
            "visual: primero quién llama y quién atiende, después qué información hay que pedir "
            "(día, hora, número de personas) y cuánto tiempo tienen. Hacer una demostración "
            "breve con un alumno antes de empezar y comprobar la comprensión con preguntas "
            "concretas ('¿Quién llama primero?', '¿Qué tres datos pides?') en lugar de "
            "'¿Lo entendéis?'."
        ),
        context={
            "learner_age": "adults (26-64)",
            # Stated on the ACTFL scale: reports count it under its mapped CEFR level, A2.
            "actfl_level": "Intermediate Low",
            "learning_purpose": "travel",
            "class_configuration": "small group",
            "delivery_mode": "online synchronous",
        },
        ordinal_criteria=[
            (
                "Claridad de las instrucciones para un grupo A2.",
                3,
                {0: "confusas", 1: "poco claras", 2: "claras", 3: "muy claras"},
            )
        ],
        criteria=[
            ("Las instrucciones se dan en español sencillo, adecuado al nivel A2.", 4),
            ("Incluye una demostración o un modelo de la llamada antes de empezar.", 3),
            ("Explica la actividad con un texto largo de reglas gramaticales.", -2),
        ],
        responses={
            "orion": (
                "1. Muestra en pantalla: *A llama, B es el restaurante.*\n"
                "2. Haz tú la llamada con un alumno: *Hola, quiero reservar una mesa para "
                "cuatro el sábado a las nueve.*\n"
                "3. Pregunta: *¿Quién llama? ¿Qué tres datos necesitas?* y después, a las "
                "parejas: cinco minutos."
            ),
            "kestrel": (
                "Antes de la actividad, repasa el condicional de cortesía (*querría, podría*), "
                "los pronombres de objeto indirecto y la diferencia entre *ser* y *estar*, "
                "con una lista de reglas y excepciones; después, que hagan la llamada."
            ),
            "basalt": (
                "Explica en pocas frases quién llama y qué deben pedir (día, hora, personas), "
                "pon un ejemplo tú mismo y deja cinco minutos por pareja."
            ),
        },
    ),
]


@dataclass
class DemoReport:
    universal: str = ""
    tasks_created: list[str] = field(default_factory=list)
    tasks_kept: list[str] = field(default_factory=list)
    responses_created: int = 0

    def summary(self) -> str:
        """What was loaded, in the active language (seed_demo's: the shell's)."""
        none = gettext("none")
        return gettext(
            "universal criteria %(universal)s; tasks created: %(created)s; already there: "
            "%(kept)s; %(responses)s responses created"
        ) % {
            "universal": self.universal,
            "created": ", ".join(self.tasks_created) or none,
            "kept": ", ".join(self.tasks_kept) or none,
            "responses": self.responses_created,
        }


@transaction.atomic
def seed_demo_benchmark(framework: Framework, author: Any, maintainer: Any) -> DemoReport:
    """Load the universal criteria and the demo tasks into `framework`; idempotent."""
    report = DemoReport()
    seed = read_universal_criteria(settings.BASE_DIR / "fixtures" / "universal_criteria.json")
    report.universal = services.load_universal_criteria(framework, seed.criteria).summary()
    for spec in TASKS:
        task = Task.objects.filter(framework=framework, key=spec.key).first()
        if task is None:
            _create_published(framework, spec, author, maintainer)
            report.tasks_created.append(spec.key)
        else:
            report.tasks_kept.append(spec.key)
        task = Task.objects.get(framework=framework, key=spec.key)
        report.responses_created += _record_responses(task, spec)
    return report


def _create_published(framework: Framework, spec: DemoTask, author: Any, maintainer: Any) -> None:
    sub = SubCompetency.objects.get(competency__framework=framework, code=spec.sub_competency)
    for wording, weight in CONSENSUS.get(spec.sub_competency, []):
        if not Criterion.objects.filter(sub_competency=sub, versions__wording=wording).exists():
            services.add_criterion(sub, wording, weight, author)
    task = services.create_task(
        sub,
        spec.key,
        spec.instruction,
        author,
        system_prompt=spec.system_prompt or SYSTEM_PROMPT,
        language=spec.language,
        reference_answer=spec.reference_answer,
        difficulty=spec.difficulty,
        task_type=spec.task_type,
    )
    variables = {v.key: v for v in ContextVariable.objects.filter(framework=framework)}
    services.set_context_values(
        task, {variables[key]: value for key, value in spec.context.items()}, author
    )
    for title, text in spec.resources:
        services.add_resource(task, title, author, text=text)
    for wording, weight in spec.criteria:
        services.add_criterion(task, wording, weight, author)
    for wording, weight, labels in spec.ordinal_criteria:
        services.add_criterion(
            task,
            wording,
            weight,
            author,
            scale_labels=dict(labels.items()),
            scoring_type="ordinal",
            scale_min=min(labels),
            scale_max=max(labels),
        )
    for wording, weight, rule, share in spec.turn_criteria:
        services.add_criterion(
            task, wording, weight, author, applies_to="turn", turn_rule=rule, turn_share=share
        )
    for code, reason in spec.exclusions.items():
        criterion = Criterion.objects.get(framework=framework, code=code)
        services.exclude_universal(task, criterion, reason, author)
    services.submit_for_review(task, author)
    services.approve(task, maintainer, "Demo task, approved on seeding.")


def _record_responses(task: Task, spec: DemoTask) -> int:
    created = 0
    for model, answer in spec.responses.items():
        name, family, version = MODELS[model]
        content: dict[str, Any] = (
            {"text": answer}
            if isinstance(answer, str)
            else {"turns": [TurnSpec(role, text) for role, text in answer]}
        )
        _, new = services.record_response(
            task,
            name,
            external_id=f"demo/{task.key}/{name}",
            model_family=family,
            model_version=version,
            **content,
        )
        created += new
    return created
