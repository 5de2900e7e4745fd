// The project speaks only of itself: no code, comment or doc names the numbered periods its work was done in (a
// period word and its number). History is in git; a comment cites a doc section by topic instead.

/** The words, kept apart here so that this file's own source does not name a period. */
const PERIOD_WORDS = ['sess' + 'ions?', 'st' + 'ops?', 'rou' + 'nds?'];

/** A period word followed by a number ("… 8", "… 5–9", "…-27"), or the first word opening a parenthesis. */
const PERIOD = new RegExp(`\\b(?:${PERIOD_WORDS.join('|')})(?:\\s+|-)\\d|\\(\\s*${PERIOD_WORDS[0]}\\b`, 'gi');

export interface PeriodMention {
  line: number;
  text: string;
}

/** Every mention of a numbered work period in `text`, with its 1-based line. */
export function periodMentions(text: string): PeriodMention[] {
  const out: PeriodMention[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(PERIOD)) out.push({ line: i + 1, text: m[0] });
  });
  return out;
}
