"""Content packs: the learner's and the built-in cards, personas and scenes, read from markdown
files with YAML front matter. One job to a module:

    schema      the strict pydantic models of a card and a persona (Card, Criterion, Persona, Voice, ...),
                a problem (`path:line: message`) and the Library they are served from
    markdown    a file's front matter and `## ` sections, with the line of each key for problems
    loader      files -> Library: cards, personas and scenes, the learner's own cards read when asked
                for (LazyCards), a file parsed once per process
    index       the own-card folder's `.index.jsonl` (what the YAML parser read from each file)
    text_input  reading a text file (a content file, an answer, JSONL) as UTF-8 text, and checking
                a str is text

The content layer never imports scoring: the loader is given the check of each detector's params
(coach.library passes scoring's, from coach.validation). Scoring imports only the schema.
"""
