"""The refusal patterns of monitor/text/abstention.py, language by language.

Each language gets the same three roles in its own words: the answerer with a predicate of
inability ("cannot answer"), the sources with a negated predicate of telling ("the passage does
not mention"), and a statement that information is absent ("there is no information on"). This
module owns the pattern text and the two compiled regexes (`_ABSTAIN_RE` for the Latin-script
languages, `_CJK_RE` for Chinese and Japanese); finding clauses with them is abstention.py's.
"""

from __future__ import annotations

import re

from monitor.text.refusal_gate import _ASCII_WORD_RE

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
    r"\b(?:der|die|das|den|dem|diese[rsmn]?)\s+(?:text|texte|passagen?|abschnitte?|kontext|"
    r"dokumente?|dokument|artikel|quellen?|auszüge?|daten|informationen)\s+(?:\w+\s+){0,2}?"
    r"(?:enthält|enthalten|nennt|nennen|erwähnt|erwähnen|gibt|geben|liefert|liefern|bietet|"
    r"bieten|macht|machen|sagt|sagen)\s+(?:\w+\s+)?(?:keine?n?|nicht|nichts)\b",
    r"\bkeine\s+(?:\w+\s+)?(?:informationen|angaben|hinweise|daten|details|erwähnung)",
    r"\b(?:nicht\s+(?:genügend|ausreichend|genug))\s+(?:\w+\s+)?(?:informationen|angaben|"
    r"daten|kontext)",
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

_LATIN = (*_EN, *_FR, *_ES_PT, *_IT, *_DE_NL)
# Where a match can start: every pattern but two opens with a word boundary before a word
# character; of the two, one opens with "do"/"does"/"did"/"don't"/"didn't" (also inside a
# word), the other with the text's start, ".", ":", ";" or a word boundary. With re.I no
# pattern has a first character the engine can scan for, so it tried all 48 at every position;
# this look-ahead, true wherever some pattern matches, lets it leave the other positions at
# once (the same matches, tests/unit/monitor/text/test_refusal_patterns.py; the pattern's time
# over the dev sets' sentences 1.71 -> 0.71 s).
_ABSTAIN_START = r"(?=\b\w|^|[.:;d])"
_ABSTAIN = _ABSTAIN_START + "(?:" + "|".join(f"(?:{p})" for p in _LATIN) + ")"
_ABSTAIN_RE = re.compile(_ABSTAIN, re.I)
# The same patterns for `text.lower()` of an ASCII text, case-sensitive (their letters are all
# lower case, escapes aside): lower-casing ASCII maps only A-Z, so the offsets and the word
# boundaries stay, and without re.I the engine skips the alternatives whose first letter differs
# instead of trying each (the dev sets' refusal candidates: ~2x faster).
_ABSTAIN_LOWER_RE = re.compile(_ABSTAIN)
_CJK_RE = re.compile("|".join(f"(?:{p})" for p in _CJK))

# The English patterns alone, for a lowered ASCII text holding none of the words the other
# languages' patterns need (below): there no other pattern can match anywhere, so the matches
# are those of `_ABSTAIN_LOWER_RE`, found with half the alternatives tried at each start.
_ABSTAIN_EN_LOWER_RE = re.compile(_ABSTAIN_START + "(?:" + "|".join(f"(?:{p})" for p in _EN) + ")")
# For each pattern of the other languages, words (whole runs of a-z, as `_ASCII_WORD_RE` finds
# them) of which one must stand in an ASCII text it matches; the accented words aside (an ASCII
# text holds none). Where a pattern's word can run on into more letters, a part of it instead.
_OTHER_LANGUAGE_WORDS = frozenset(
    [
        # French: je ne peux pas / impossible de / le texte ne mentionne / pas d'information
        *("pas", "de", "ne", "peu"),
        # Spanish and Portuguese: no puedo / el pasaje no menciona / no hay / ninguna información
        *("puedo", "podemos", "posible", "consigo", "posso", "tengo", "tenho"),
        *("pasaje", "pasajes", "trecho", "trechos", "passagen", "passagens", "texto", "textos"),
        *("contexto", "documento", "documentos", "articulo", "articulos", "fuente", "fuentes"),
        *("fonte", "fontes", "fragmento", "fragmentos", "datos", "dados"),
        *("hay", "ha", "existe", "se", "ninguna", "nenhuma", "nenhum", "informacion"),
        # Italian: non posso / il testo non menziona / nessuna informazione
        *("non", "nessuna", "nessun", "informazioni"),
        # German and Dutch: ich kann nicht / der Text enthält keine / de tekst bevat geen
        *("ich", "wir", "kein", "keine", "keinn", "keinen", "nicht", "nichts"),
        *("niet", "niets", "geen", "onvoldoende"),
    ]
)
_OTHER_LANGUAGE_PARTS = ("aucun", "mencionad", "especificad", "indicad")


def may_be_other_language(low: str) -> bool:
    """False only when no pattern of a language other than English can match `low`, a lowered
    ASCII text (tests/unit/monitor/text/test_refusal_patterns.py)."""
    return any(
        map(low.__contains__, _OTHER_LANGUAGE_PARTS)
    ) or not _OTHER_LANGUAGE_WORDS.isdisjoint(_ASCII_WORD_RE.findall(low))
