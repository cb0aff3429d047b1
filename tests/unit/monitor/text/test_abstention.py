"""Refusals by structure: the answerer or the sources lacking the information, in several
phrasings and languages; content claims with the same words are not refusals."""

from __future__ import annotations

import pytest

from monitor.text.abstention import abstains, abstention_spans, content_words, residue

REFUSALS = [
    # the answerer cannot answer
    "Unable to answer based on given passages.",
    "Therefore, I am unable to answer the question based on the provided passages.",
    "I don't have enough information to answer that.",
    "We cannot determine this from the documents.",
    "Sorry, I can't help with that based on these sources.",
    "Based on the given passages, it is difficult to definitively say what the drawer is for.",
    # the sources lack it
    "The context doesn't say when the bridge opened.",
    "However, the passages do not provide specific information on typical salaries.",
    "The documents make no mention of the CEO's salary.",
    "None of the passages explicitly state what the drawer is for.",
    "The provided data lacks any figures on revenue.",
    "It is not clear from the passages how many people died.",
    "Music and ambiance are not specified.",
    # information is absent
    "There is no information about the opening hours.",
    "No details are provided about the ceremony.",
    "There is not enough context to say.",
    # other languages
    "Je ne peux pas répondre à cette question à partir des passages fournis.",
    "Les documents ne mentionnent pas le prix du billet.",
    "No puedo responder con la información proporcionada.",
    "Los pasajes no mencionan la fecha de apertura.",
    "Os trechos não mencionam o preço.",
    "I passaggi non forniscono informazioni sul prezzo.",
    "Die Passagen enthalten keine Informationen über den Preis.",
    "Ich kann diese Frage anhand der Texte nicht beantworten.",
    "De tekst vermeldt geen prijs.",
    "文中没有提供相关信息。",
    "根据所给段落，无法回答这个问题。",
    "提供された文章には記載されていません。",
]

CLAIMS = [
    "Essential amino acids are those that cannot be produced by the body.",
    "These raffles are not included in the ticket price.",
    "The restaurant does not offer reservations.",
    "The company did not provide a dividend in 2020.",
    "The study found no evidence that the drug works.",
    "He was unable to attend the meeting.",
    "They don't have a pool.",
    "It does not support Windows.",
    "WiFi is not available at the restaurant.",
    "If you don't have a Generation 1 monster, you can use a basic monster.",
    "Le restaurant ne propose pas de réservations le dimanche soir à Paris.",
    "Das Museum ist montags geschlossen.",
]


@pytest.mark.parametrize("text", REFUSALS)
def test_refusals_abstain(text: str) -> None:
    assert abstains(text), abstention_spans(text)


@pytest.mark.parametrize("text", CLAIMS)
def test_claims_with_negations_are_no_refusals(text: str) -> None:
    assert not abstains(text)


def test_a_refusal_beside_a_claim_leaves_the_claim() -> None:
    text = (
        "Passage 2 shows a map of flood warnings in the UK, but it does not provide "
        "information on the temperature in Bucharest."
    )
    spans = abstention_spans(text)
    assert spans and not abstains(text)
    assert residue(text, spans) == "Passage 2 shows a map of flood warnings in the UK"
    text = (
        "Some women feel nausea early in pregnancy, although this is not mentioned in the passages."
    )
    assert residue(text, abstention_spans(text)) == "Some women feel nausea early in pregnancy"


def test_content_words_leave_meta_words_out() -> None:
    assert content_words("However, based on the given passages") == 0
    assert content_words("flood warnings map") == 3
    assert content_words("") == 0


def test_a_refusal_clause_keeps_its_list_and_leaves_a_relative_claim() -> None:
    listed = (
        "The provided data does not include information about reservations, takeout service, "
        "WiFi availability, or whether the place is good for groups."
    )
    assert abstains(listed)
    assert abstains("The ambience, music, Wi-Fi and parking details are not specified in the data.")
    relative = "They have an outdoor seating area, which is not specified in the data."
    assert residue(relative, abstention_spans(relative)) == "They have an outdoor seating area"
    opening = "While the data does not mention parking, the restaurant offers outdoor seating."
    assert residue(opening, abstention_spans(opening)) == "the restaurant offers outdoor seating."
