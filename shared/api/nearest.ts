// The nearest of some known words to a misspelt one, for "did you mean" hints on kinds and label keys.

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from a to b. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** The known word closest to `word` within `maxDistance` edits (the first on a tie), or undefined. */
export function nearest(word: string, known: Iterable<string>, maxDistance: number): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const k of known) {
    const distance = editDistance(word, k);
    if (distance <= maxDistance && (!best || distance < best.distance)) best = { word: k, distance };
  }
  return best?.word;
}
