// GitHub-style heading anchors, so a `uri` like `guide.md#rolling-back` opens the same section on GitHub.

// What GitHub keeps in a slug: letters, marks, numbers, connector punctuation (`_`), `-` and spaces.
const STRIPPED = /[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu;

/** Plain-text form of a heading: inline links become their text, code/emphasis markers go. */
export function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]|~~/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The un-deduplicated slug of a heading's plain text. */
export function slugify(text: string): string {
  return text.toLowerCase().replace(STRIPPED, '').replace(/ /g, '-');
}

/** One slugger per document: repeated slugs get `-1`, `-2`, … exactly as github-slugger does. */
export function createSlugger(): (text: string) => string {
  const occurrences = new Map<string, number>();
  return (text) => {
    // An empty slug would collide with the "no anchor" preamble chunk, so it gets a word.
    const base = slugify(text) || 'section';
    let slug = base;
    while (occurrences.has(slug)) {
      const next = (occurrences.get(base) ?? 0) + 1;
      occurrences.set(base, next);
      slug = `${base}-${next}`;
    }
    occurrences.set(slug, 0);
    return slug;
  };
}
