// How text becomes index terms. Shared by indexing and querying so both sides agree. Pure.

// Whitespace, punctuation and symbols separate words (`ledger-api` → `ledger`, `api`).
const SEPARATORS = /[\s\p{Z}\p{P}\p{S}]+/u;
// Scripts written without spaces: every character is a term of its own.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const UNSPACED_OR_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;

// Words so common in English questions that they only dilute BM25 ("How should deployment work?").
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could do does for from had has have how i if in into is it its ' +
    'me my of on or our shall should so than that the their them then there these they this those to ' +
    'us was we were what when where which who why will with would you your'
  ).split(' '),
);

/** Splits text into raw words; runs of CJK characters are split into single characters. */
export function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const word of text.split(SEPARATORS)) {
    if (word === '') continue;
    if (!UNSPACED.test(word)) {
      words.push(word);
      continue;
    }
    for (const piece of word.match(UNSPACED_OR_RUN) ?? []) words.push(piece);
  }
  return words;
}

/** Normalises one word into an index term; `null` drops it (stop words, lone Latin letters). */
export function processTerm(word: string): string | null {
  const term = word.normalize('NFKC').toLowerCase();
  if (STOP_WORDS.has(term)) return null;
  if (term.length < 2 && !UNSPACED.test(term)) return null;
  return term;
}

/** The distinct terms of a query, in order, capped so a long query cannot fan out into costly searches. */
export function queryTerms(query: string, max = 64): string[] {
  const terms = new Set<string>();
  for (const word of tokenize(query)) {
    const term = processTerm(word);
    if (term !== null) terms.add(term);
    if (terms.size >= max) break;
  }
  return [...terms];
}
