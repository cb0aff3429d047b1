"""Refusals and abstentions: a sentence that says the answerer or its sources lack the information.

"Unable to answer based on the given passages", "the article does not mention the price",
"je ne peux pas répondre", "没有提供相关信息" assert nothing about the world: they are not supported
and not hallucinated either, but their own outcome (`abstain`). They are found by structure,
not by a list of whole phrases: a clause whose subject is the answerer (I / we / an impersonal
"it", or no subject: "Unable to ...") with a predicate of inability about answering or finding
("cannot answer", "am unable to determine", "don't have information"), or whose subject is the
sources (passage, context, document, article, text, data, information provided, ...) with a
negated predicate of telling ("does not mention / provide / specify / say"), or a statement that
information is absent ("there is no information on", "is not mentioned in the passages", "not
enough information"). Each language gets the same three roles in its own words (English,
French, Spanish, Portuguese, Italian, German, Dutch, Chinese, Japanese).

A sentence can hold a content claim beside its refusal ("Passage 2 gives a map of flood
warnings, but it does not provide the temperature in Bucharest"): `abstention_spans` returns
the refusal clauses, `residue` the content left once they are cut; the caller checks that
residue and calls the sentence an abstention only when nothing checkable is left.
"""

from __future__ import annotations

import re

# --- English ------------------------------------------------------------------------------
# the sources by their noun (a determiner before it changes nothing: the refusal's clause is
# widened to its start anyway, and a noun-first pattern lets the engine skip ahead)
_SOURCE = (
    r"(?:passages?|context|documents?|docs|texts?|articles?|sources?|excerpts?|snippets?|"
    r"search\s+results|results|references?|information|data|content|reviews?|"
    r"(?:this|the|my)\s+(?:overview|summary|answer|response))"
    r"(?:\s+\d+)?(?:\s+(?:provided|given|above|here|supplied|retrieved|available))?"
)
# after a preposition: "in the provided passages", "none of the documents"
_THE_SOURCE = (
    r"(?:(?:the|these|those|this|that|any|all|each|both)\s+)?"
    r"(?:(?:provided|given|above|retrieved|available|supplied)\s+)?" + _SOURCE
)
_TELL = (
    r"(?:provide|mention|contain|include|specify|state|say|give|discuss|address|offer|cover|"
    r"list|indicate|reveal|detail|describe|explain|clarify|tell|talk|refer|show|note|"
    r"answer|support|confirm|report|identify|elaborate|go\s+into|touch\s+on|"
    r"suggest|establish|define|outline|make\s+(?:any\s+)?mention)"
)
_INFO = (
    r"(?:information|info|mention|details?|data|specifics?|indication|answer|"
    r"explanation|description|reference|context|clue|evidence\s+(?:in|from)\s+the)"
)
_ANSWER_VERB = (
    r"(?:answer|respond|provide|determine|find|locate|say|tell|give|confirm|identify|offer|"
    r"verify|specify|state|know|establish|ascertain|assess|comment|speculate|infer|conclude|"
    r"help|address|access|browse|answer\s+(?:this|that|the|your))"
)
_EN = [
    # the sources with a negated predicate of telling
    rf"\b{_SOURCE}\s+(?:(?:does|do|did)\s+not|doesn['’]t|don['’]t|didn['’]t|never|fails?\s+to|"
    rf"(?:is|are)\s+not\s+(?:able|sufficient|enough)\s+to)\s+(?:\w+ly\s+)?{_TELL}\b",
    rf"\b{_SOURCE}\s+(?:contains?|includes?|provides?|gives?|offers?|has|have|makes?|says?)\s+"
    rf"(?:no|nothing|neither)\b",
    rf"\b{_SOURCE}\s+lacks?\b",
    # a pronoun standing for the sources: only with a predicate or object about information
    rf"\b(?:it|they)\s+(?:(?:does|do|did)\s+not|doesn['’]t|don['’]t|didn['’]t)\s+(?:\w+ly\s+)?"
    rf"(?:(?:mention|specify|say|state|discuss|clarify|elaborate|go\s+into|address)\b|"
    rf"{_TELL}\s+(?:\w+\s+){{0,2}}?{_INFO})",
    # "The passage mentions X but does not say Y": the refusal coordinated with its subject
    rf"\b{_SOURCE}\s+(?:\S+\s+){{1,15}}?(?:but|and|yet)\s+(?:(?:does|do|did)\s+not|"
    rf"doesn['’]t|don['’]t|didn['’]t)\s+(?:\w+ly\s+)?{_TELL}\b",
    rf"\bnone\s+of\s+{_THE_SOURCE}\s+(?:\w+ly\s+)?{_TELL}",
    # any subject withholding information: "doesn't provide details on reservations"
    rf"(?:(?:does|do|did)\s+not|doesn['’]t|don['’]t|didn['’]t)\s+(?:\w+ly\s+)?(?:provide|give|"
    rf"offer|include|contain|have|list)\s+(?:any\s+)?(?:\w+\s+)?{_INFO}\s+(?:on|about|"
    r"regarding|of|as\s+to|for|concerning)\b",
    # information is absent
    r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+not\s+(?:\w+ly\s+)?(?:mentioned|"
    r"specified|stated|indicated|disclosed|detailed|clarified)\b",
    r"\b(?:difficult|hard|not\s+possible)\s+to\s+(?:\w+ly\s+)?(?:say|determine|answer|tell|"
    r"know|ascertain)\b",
    rf"\bthere\s+(?:is|are|was|were|seems\s+to\s+be|appears\s+to\s+be)\s+(?:no|not\s+(?:any|"
    rf"enough|sufficient))\s+(?:\w+\s+){{0,2}}?{_INFO}",
    rf"\bno\s+(?:\w+\s+){{0,2}}?{_INFO}\s+(?:is|are|was|were|has\s+been|have\s+been)\s+"
    r"(?:provided|given|available|mentioned|found|included|stated|offered|specified)",
    r"\b(?:is|are|was|were|has\s+been|have\s+been)\s+not\s+(?:\w+ly\s+)?(?:mentioned|"
    r"specified|provided|stated|given|discussed|included|addressed|covered|described|"
    r"indicated|explained|listed|detailed|clarified|found|available|known|clear)\s+"
    rf"(?:in|from|by|within)\s+{_THE_SOURCE}",
    r"\b(?:not|n['’]t)\s+(?:\w+\s+){0,2}?(?:enough|sufficient)\s+(?:\w+\s+)?(?:information|"
    r"context|data|details|evidence)",
    r"\b(?:insufficient|limited|no\s+(?:further|additional|more))\s+(?:\w+\s+)?(?:information"
    r"|context|data|details)\s+(?:is|are|was|to|in|from|provided|available|given)",
    # the answerer cannot answer
    rf"\b(?:i|we)\s+(?:(?:am|are|was|were)\s+(?:unable|not\s+able)\s+to|cannot|can\s*not|"
    rf"can['’]t|could\s+not|couldn['’]t|do\s+not|don['’]t|did\s+not|didn['’]t)\s+"
    rf"(?:\w+ly\s+)?(?:{_ANSWER_VERB}|have|know|see)\b",
    rf"\bit\s+(?:is|was|'s)\s+(?:unable|not\s+able|impossible|not\s+possible)\s+to\s+"
    rf"(?:\w+ly\s+)?{_ANSWER_VERB}\b",
    rf"(?:^|[.:;]\s*|\b(?:therefore|thus|so|hence|however|unfortunately|sorry),?\s+)"
    rf"(?:i\s+am\s+)?(?:unable|not\s+able)\s+to\s+(?:\w+ly\s+)?{_ANSWER_VERB}\b",
    r"\b(?:answer|question|this|that|it|the\s+(?:exact|specific|precise)\s+\w+)\s+(?:cannot|"
    r"can\s*not|can['’]t|could\s+not|couldn['’]t)\s+be\s+(?:\w+ly\s+)?(?:answered|"
    r"determined|provided|confirmed|established|ascertained|known|inferred|verified)",
    r"\b(?:an?|the|any)\s+(?:\w+\s+){0,2}?answer\s+(?:cannot|can\s*not|can['’]t|could\s+not)"
    r"\s+be\s+(?:given|provided|determined|found)",
    r"\b(?:cannot|can\s*not|can['’]t|could\s+not|couldn['’]t|unable\s+to|impossible\s+to)\s+"
    r"(?:be\s+)?(?:determined?|answered|answer|conclude|ascertain|infer|say)\s+"
    rf"(?:\w+\s+){{0,6}}?(?:from|based\s+on|with|given|using|in)\s+{_THE_SOURCE}",
    r"\bunable\s+to\s+answer\b",
    r"\b(?:beyond|outside)\s+(?:the\s+)?(?:scope|information)\s+of\s+(?:the|these|this)\s+",
]

# --- other languages: the same roles in their own words -----------------------------------
_FR = [
    r"\b(?:je|nous)\s+ne\s+(?:peux|pouvons|suis|sommes|sais|savons|dispose|disposons)\s+"
    r"(?:pas|guère)\b",
    r"\b(?:impossible|pas\s+possible)\s+de\s+(?:répondre|déterminer|dire|trouver|préciser)",
    r"\b(?:le|les|la|l['’]|ce|ces|du|des)\s*(?:passages?|textes?|contexte|documents?|articles?"
    r"|sources?|extraits?|données|informations?)\s+(?:\w+\s+){0,2}?ne\s+(?:\w+\s+)?"
    r"(?:mentionne|mentionnent|fournit|fournissent|contient|contiennent|précise|précisent|"
    r"indique|indiquent|donne|donnent|dit|disent|parle|parlent|traite|traitent|permet|"
    r"permettent)\b",
    r"\b(?:aucune?|pas\s+d['’]|pas\s+assez\s+d['’]|pas\s+suffisamment\s+d['’]|peu\s+d['’])"
    r"\s*(?:information|indication|précision|donnée|mention|détail)",
    r"\bn['’](?:est|sont)\s+pas\s+(?:mentionnée?s?|précisée?s?|indiquée?s?|fournie?s?)",
    r"\bne\s+(?:sont|est)\s+pas\s+(?:mentionnée?s?|précisée?s?|indiquée?s?|fournie?s?)",
]
_ES_PT = [
    r"\bno\s+(?:puedo|podemos|es\s+posible|consigo|posso|podemos|é\s+possível|tengo|tenho)\s+"
    r"(?:\w+\s+)?(?:responder|determinar|proporcionar|encontrar|decir|dizer|fornecer|"
    r"informaci[oó]n|informaç)",
    r"\bnão\s+(?:posso|podemos|é\s+possível|consigo|tenho|temos|sei)\b",
    r"\b(?:el|los|la|las|o|os|a|as|este|estos|esta|estas|este|estes|esta|estas)\s+"
    r"(?:pasajes?|trechos?|passagens?|pasajes|textos?|contexto|documentos?|art[ií]culos?|"
    r"fuentes?|fontes?|fragmentos?|datos|dados)\s+(?:\w+\s+){0,2}?(?:no|não)\s+"
    r"(?:menciona|mencionan|mencionam|proporciona|proporcionan|fornece|fornecem|contiene|"
    r"contienen|contém|contêm|especifica|especifican|especificam|indica|indican|indicam|"
    r"dice|dicen|diz|dizem|incluye|incluyen|inclui|incluem|aborda|abordan|abordam)\b",
    r"\b(?:no|não)\s+(?:hay|h[aá]|existe|se\s+(?:menciona|especifica|proporciona|indica))\b"
    r"(?:\s+\w+){0,3}",
    r"\b(?:ninguna|ningún|nenhuma|nenhum)\s+(?:informaci[oó]n|informaç|dato|dado|menci[oó]n|"
    r"detalhe|detalle)",
    r"\b(?:informaci[oó]n|informaç[aã]o|informações)\s+(?:insuficiente|suficiente)",
    r"\b(?:não|no)\s+(?:é|es|está|son|são)\s+(?:mencionad[oa]s?|especificad[oa]s?|"
    r"indicad[oa]s?)",
]
_IT = [
    r"\bnon\s+(?:posso|possiamo|è\s+possibile|sono\s+in\s+grado\s+di|riesco\s+a|ho|abbiamo)\s+"
    r"(?:\w+\s+)?(?:rispondere|determinare|fornire|trovare|dire|informazioni|dati)",
    r"\b(?:il|i|lo|gli|la|le|l['’]|questo|questi)\s*(?:passaggi?|passi|testi?|testo|contesto|"
    r"documenti?|articoli?|articolo|fonti?|fonte|estratti?|dati)\s+(?:\w+\s+){0,2}?non\s+"
    r"(?:menziona|menzionano|fornisce|forniscono|contiene|contengono|specifica|specificano|"
    r"indica|indicano|dice|dicono|include|includono|parla|parlano)\b",
    r"\bnon\s+(?:ci\s+sono|c['’]è|vi\s+sono|è\s+(?:menzionat|specificat|indicat))",
    r"\b(?:nessuna|nessun)\s+(?:informazione|indicazione|dato|menzione|dettaglio)",
    r"\binformazioni\s+(?:insufficienti|sufficienti)",
]
_DE_NL = [
    r"\b(?:ich|wir)\s+(?:kann|können|konnte|konnten|habe|haben|weiß|wissen)\s+(?:\w+\s+){0,6}?"
    r"(?:nicht|keine?n?)\b",
    r"\b(?:der|die|das|den|dem|diese[rsmn]?)\s+(?:Text|Texte|Passagen?|Abschnitte?|Kontext|"
    r"Dokumente?|Dokument|Artikel|Quellen?|Auszüge?|Daten|Informationen)\s+(?:\w+\s+){0,2}?"
    r"(?:enthält|enthalten|nennt|nennen|erwähnt|erwähnen|gibt|geben|liefert|liefern|bietet|"
    r"bieten|macht|machen|sagt|sagen)\s+(?:\w+\s+)?(?:keine?n?|nicht|nichts)\b",
    r"\bkeine\s+(?:\w+\s+)?(?:Informationen|Angaben|Hinweise|Daten|Details|Erwähnung)",
    r"\b(?:nicht\s+(?:genügend|ausreichend|genug))\s+(?:\w+\s+)?(?:Informationen|Angaben|"
    r"Daten|Kontext)",
    r"\b(?:wird|werden|ist|sind)\s+(?:\w+\s+){0,4}?nicht\s+(?:erwähnt|angegeben|genannt|"
    r"beschrieben)",
    r"\b(?:ik|wij|we)\s+(?:kan|kunnen|heb|hebben|weet|weten)\s+(?:\w+\s+){0,6}?(?:niet|geen)\b",
    r"\b(?:de|het|deze|dit)\s+(?:tekst|teksten|passage|passages|context|documenten|document|"
    r"artikel|bron|bronnen|gegevens)\s+(?:\w+\s+){0,2}?(?:vermeldt|vermelden|bevat|bevatten|"
    r"geeft|geven|noemt|noemen|biedt|bieden)\s+(?:\w+\s+)?(?:geen|niet|niets)\b",
    r"\b(?:geen|onvoldoende|niet\s+genoeg)\s+(?:\w+\s+)?(?:informatie|gegevens|details)",
]
_CJK = [
    r"(?:无法|不能|没法|无从|未能)(?:回答|确定|判断|得知|提供|找到)",
    r"(?:没有|未|并未|并没有)(?:提供|提到|提及|说明|包含|给出|涉及|记载|明确)",
    r"(?:没有|缺乏|缺少)(?:足够的?|相关的?|具体的?)?(?:信息|资料|数据|内容)",
    r"(?:信息|资料)(?:不足|不够)",
    r"(?:回答|お答え)(?:でき|いたしかね)(?:ません|ない)",
    r"答えられ(?:ません|ない)",
    r"(?:記載|言及|説明|情報|記述)(?:は|が)?(?:ありません|されていません|ない|見当たりません)",
    r"(?:判断|特定)(?:でき|し)(?:ません|ない)",
]

_ABSTAIN_RE = re.compile("|".join(f"(?:{p})" for p in (*_EN, *_FR, *_ES_PT, *_IT, *_DE_NL)), re.I)
_CJK_RE = re.compile("|".join(f"(?:{p})" for p in _CJK))
# a cheap look before the patterns run: most sentences of most answers hold no negation, and
# an English refusal always names what is lacking or who cannot answer (word-set look-ups,
# not a regex scan: the check runs on every uncited claim)
_NEGATIVE_WORDS = frozenset(
    [
        "no",
        "not",
        "cannot",
        "unable",
        "lack",
        "lacks",
        "insufficient",
        "limited",
        "none",
        "beyond",
        "outside",
        "sorry",
        "difficult",
        "hard",
        "impossible",
    ]
)
_TOPIC_WORDS = frozenset(
    [
        "passage",
        "passages",
        "context",
        "document",
        "documents",
        "doc",
        "docs",
        "text",
        "texts",
        "article",
        "articles",
        "source",
        "sources",
        "excerpt",
        "excerpts",
        "snippet",
        "snippets",
        "results",
        "reference",
        "references",
        "information",
        "info",
        "data",
        "content",
        "review",
        "reviews",
        "answer",
        "answered",
        "question",
        "determine",
        "determined",
        "i",
        "we",
        "unable",
        "mention",
        "mentioned",
        "specified",
        "stated",
        "indicated",
        "disclosed",
        "detailed",
        "clarified",
        "enough",
        "sufficient",
        "insufficient",
        "limited",
        "difficult",
        "hard",
        "say",
        "tell",
        "details",
        "specifics",
        "pasaje",
        "pasajes",
        "documentos",
        "texto",
        "textos",
        "contexto",
        "fuente",
        "fuentes",
        "articulo",
        "datos",
        "informacion",
        "responder",
        "passaggi",
        "testo",
        "testi",
        "documenti",
        "fonti",
        "dati",
        "informazioni",
        "rispondere",
        "trechos",
        "passagens",
        "fontes",
        "dados",
        "tekst",
        "teksten",
        "bron",
        "bronnen",
        "gegevens",
        "informatie",
    ]
)
# negations of the other languages written in plain ASCII: the patterns decide on their own
_OTHER_NEGATIONS = frozenset(
    [
        "ne",
        "pas",
        "aucune",
        "aucun",
        "non",
        "nessuna",
        "nessun",
        "ningun",
        "ninguna",
        "nenhum",
        "nenhuma",
        "nicht",
        "kein",
        "keine",
        "keinen",
        "keiner",
        "keine",
        "niet",
        "geen",
        "onvoldoende",
    ]
)
_ASCII_WORD_RE = re.compile(r"[a-z]+")
_OTHER_NEGATIONS_RE = re.compile(r"\b(?:" + "|".join(sorted(_OTHER_NEGATIONS)) + r")\b")


_NEGATIVE = [
    "no",
    "not",
    "cannot",
    "unable",
    "lacks?",
    "insufficient",
    "limited",
    "none",
    "beyond",
    "outside",
    "sorry",
    "difficult",
    "hard",
    "impossible",
]
# one scan of the lowered sentence: an English negation (group 1) or another language's
_GATE_RE = re.compile(
    r"\b("
    + "|".join(_NEGATIVE)
    + r")\b|(n['’]t)\b|\b(?:"
    + "|".join(sorted(_OTHER_NEGATIONS))
    + r")\b"
)


# parts of every negation word above, found by plain substring search (C, no regex): a text
# holding none of them holds no negation (" no" also covers not, none, nothing, non)
_NEGATION_PARTS = (
    " no",
    "n't",
    "n’t",
    "cannot",
    "unable",
    "lack",
    "insufficient",
    "limited",
    "beyond",
    "outside",
    "sorry",
    "difficult",
    "hard",
    "impossible",
    " ne ",
    " pas",
    "aucun",
    "nessun",
    "ningun",
    "nenhum",
    "nicht",
    "kein",
    "niet",
    "geen",
    "onvoldoende",
)


def _negation_part(low: str) -> bool:
    return any(part in low for part in _NEGATION_PARTS)


def may_refuse(text: str) -> bool:
    """Cheap and never wrong one way: False only when `text` holds no negation of any language
    (and is plain ASCII), so no sentence of it can be a refusal. Checked once on a whole answer,
    it spares the closer look at each of its sentences."""
    return not text.isascii() or _negation_part(" " + text.lower())


def _worth_a_look(text: str) -> bool:
    if not text.isascii():
        return True  # other scripts and accented languages: the patterns decide
    low = " " + text.lower()
    if not _negation_part(low):
        return False
    for m in _GATE_RE.finditer(low):
        if m.lastindex is None:
            return True  # a negation of another language: the patterns decide
        if not _TOPIC_WORDS.isdisjoint(_ASCII_WORD_RE.findall(low)):
            return True
        return _OTHER_NEGATIONS_RE.search(low, m.end()) is not None
    return False


# A refusal's clause is cut out whole, not just the matched words. It ends at a sentence mark
# or a contrast ("but", "while", ...), not at a comma: what follows a comma is most often the
# list of what is missing ("does not include reservations, takeout, or WiFi"), and what
# precedes it the list's head ("The ambience, music and parking are not specified"). A clause
# that opens with a subordinator ("While the data does not mention X, it offers Y") ends at its
# first comma.
_CLAUSE_END = re.compile(
    r"[;:.!?；。：！？]|,?\s(?:but|while|whereas|although|though|so|because|however|yet)\s"
)
_CLAUSE_START = re.compile(
    r".*(?:[;:.!?；。：！？]|\s(?:but|while|whereas|although|though|so|because|however|yet)\s"
    r"|,\s(?:which|who)\s)",  # "They have a patio, which is not specified": the patio is a claim
    re.S,
)
_SUBORDINATE_RE = re.compile(
    r"\s*(?:while|whereas|although|though|since|as|because|if|when|even\s+though)\b", re.I
)
_COMMA_RE = re.compile(r"[,，、]")
# words that say nothing checkable about the world once the refusal is cut (what is left of
# "However, based on the given passages, ..." or "The passages mention X but not Y")
_META = frozenset(
    [
        "however",
        "therefore",
        "thus",
        "so",
        "hence",
        "unfortunately",
        "additionally",
        "also",
        "moreover",
        "furthermore",
        "answer",
        "question",
        "based",
        "given",
        "provided",
        "passage",
        "passages",
        "context",
        "document",
        "documents",
        "text",
        "article",
        "articles",
        "source",
        "sources",
        "information",
        "info",
        "specific",
        "specifically",
        "details",
        "detail",
        "data",
        "mention",
        "mentions",
        "mentioned",
        "provide",
        "provides",
        "note",
        "noted",
        "please",
        "sorry",
        "accurate",
        "precise",
        "exact",
        "definitive",
        "clear",
        "clearly",
        "further",
        "additional",
        "more",
        "enough",
        "sufficient",
        "only",
        "above",
        "below",
        "following",
        "other",
        "any",
        "some",
        "certain",
        "particular",
        "regarding",
        "about",
        "on",
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "for",
        "with",
        "from",
        "by",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "which",
        "what",
        "who",
        "how",
        "when",
        "where",
        "why",
        "there",
        "here",
        "i",
        "we",
        "you",
        "they",
        "he",
        "she",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "should",
        "must",
        "not",
        "no",
        "but",
        "and",
        "or",
        "nor",
        "while",
        "although",
        "though",
        "because",
        "if",
        "then",
        "than",
        "also",
        "just",
        "even",
        "still",
        "yet",
        "without",
        "within",
        "into",
        "onto",
        "upon",
        "all",
        "each",
        "both",
        "either",
        "neither",
        "respect",
        "terms",
    ]
)
MIN_RESIDUE_WORDS = 3  # content words left beside a refusal that make the sentence a claim


def abstention_spans(text: str) -> list[tuple[int, int]]:
    """The refusal clauses of `text` as (start, end) offsets, each widened to its clause; empty
    when the sentence refuses nothing."""
    if not _worth_a_look(text):
        return []
    found = [(m.start(), m.end()) for m in _ABSTAIN_RE.finditer(text)]
    found += [(m.start(), m.end()) for m in _CJK_RE.finditer(text)]
    if not found:
        return []
    spans: list[tuple[int, int]] = []
    for start, end in sorted(found):
        head = _CLAUSE_START.match(text, 0, start)
        left = head.end() if head is not None else 0
        tail = _CLAUSE_END.search(text, end)
        right = tail.start() if tail is not None else len(text)
        if _SUBORDINATE_RE.match(text, left) or _SUBORDINATE_RE.match(text, 0):
            comma = _COMMA_RE.search(text, end, right)
            if comma is not None:
                right = comma.start()
        if spans and left <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(right, spans[-1][1]))
        else:
            spans.append((left, right))
    return spans


_CONNECTORS = frozenset(
    [
        "but",
        "and",
        "while",
        "whereas",
        "although",
        "though",
        "so",
        "because",
        "however",
        "yet",
        "or",
        "which",
        "who",
    ]
)


def _trim(part: str) -> str:
    """A part left between refusal clauses, without the connectors that joined them."""
    words = part.split()
    while words and words[-1].strip(",;:").lower() in _CONNECTORS:
        words.pop()
    while words and words[0].strip(",;:").lower() in _CONNECTORS:
        words.pop(0)
    return " ".join(words).strip(" ,;:")


def residue(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the refusal clauses (and the connectors that joined them) cut out."""
    parts, at = [], 0
    for start, end in spans:
        parts.append(text[at:start])
        at = end
    parts.append(text[at:])
    kept = (_trim(p) for p in parts)
    return " ".join(p for p in kept if p.strip(" .")).strip()


_WORD_RE = re.compile(r"[^\W\d_]{2,}")


def content_words(text: str) -> int:
    """Words of `text` that could carry a checkable statement (meta and function words aside;
    each CJK character counts a half word)."""
    n = sum(1 for w in _WORD_RE.findall(text.lower()) if w not in _META and w.isascii())
    n += sum(1 for w in _WORD_RE.findall(text) if not w.isascii()) if not text.isascii() else 0
    return n


def abstains(text: str) -> bool:
    """The whole sentence is a refusal: a refusal clause and nothing checkable beside it."""
    spans = abstention_spans(text)
    return bool(spans) and content_words(residue(text, spans)) < MIN_RESIDUE_WORDS
