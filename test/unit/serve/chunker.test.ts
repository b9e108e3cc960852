import { describe, expect, it } from 'vitest';
import { type Chunk, chunkDocument, chunkMarkdown, chunkPlainText } from '../../../src/serve/chunker.js';

const md = (...lines: string[]) => lines.join('\n');

describe('chunkMarkdown', () => {
  it.each<[string, string, Chunk[]]>([
    [
      'splits at every ATX level and tracks the heading path',
      md('# Guide', 'Intro.', '## Setup', 'Install it.', '### Linux', 'Use apt.', '## Use', 'Run it.'),
      [
        { anchor: 'guide', headings: ['Guide'], text: '# Guide\nIntro.' },
        { anchor: 'setup', headings: ['Guide', 'Setup'], text: '## Setup\nInstall it.' },
        { anchor: 'linux', headings: ['Guide', 'Setup', 'Linux'], text: '### Linux\nUse apt.' },
        { anchor: 'use', headings: ['Guide', 'Use'], text: '## Use\nRun it.' },
      ],
    ],
    [
      'keeps text before the first heading as an anchorless chunk',
      md('Preface line.', '', '# Title', 'Body.'),
      [
        { anchor: '', headings: [], text: 'Preface line.' },
        { anchor: 'title', headings: ['Title'], text: '# Title\nBody.' },
      ],
    ],
    [
      'ignores # lines inside backtick and tilde fences',
      md('# Script', '```bash', '# not a heading', 'echo hi', '```', '~~~', '## still code', '~~~', 'After.'),
      [
        {
          anchor: 'script',
          headings: ['Script'],
          text: md(
            '# Script',
            '```bash',
            '# not a heading',
            'echo hi',
            '```',
            '~~~',
            '## still code',
            '~~~',
            'After.',
          ),
        },
      ],
    ],
    [
      'needs the same fence character and at least the opening length to close',
      md('# A', '````', '```', '# inside', '~~~', '````', '## B', 'b'),
      [
        { anchor: 'a', headings: ['A'], text: md('# A', '````', '```', '# inside', '~~~', '````') },
        { anchor: 'b', headings: ['A', 'B'], text: '## B\nb' },
      ],
    ],
    [
      'treats an unterminated fence as code to the end',
      md('# A', '```', '# never a heading', 'x'),
      [{ anchor: 'a', headings: ['A'], text: md('# A', '```', '# never a heading', 'x') }],
    ],
    [
      'de-duplicates anchors with -1, -2',
      md('# FAQ', 'q', '## Notes', 'one', '## Notes', 'two', '## Notes', 'three'),
      [
        { anchor: 'faq', headings: ['FAQ'], text: '# FAQ\nq' },
        { anchor: 'notes', headings: ['FAQ', 'Notes'], text: '## Notes\none' },
        { anchor: 'notes-1', headings: ['FAQ', 'Notes'], text: '## Notes\ntwo' },
        { anchor: 'notes-2', headings: ['FAQ', 'Notes'], text: '## Notes\nthree' },
      ],
    ],
    [
      'keeps CJK headings in anchors',
      md('# 部署流程', '先在预发环境验证。', '## 回滚', '使用上一个镜像。'),
      [
        { anchor: '部署流程', headings: ['部署流程'], text: '# 部署流程\n先在预发环境验证。' },
        { anchor: '回滚', headings: ['部署流程', '回滚'], text: '## 回滚\n使用上一个镜像。' },
      ],
    ],
    [
      'returns one anchorless chunk for a document without headings',
      md('Just a note.', '', 'With two paragraphs.'),
      [{ anchor: '', headings: [], text: 'Just a note.\n\nWith two paragraphs.' }],
    ],
    [
      'drops a heading with nothing under it but still counts its anchor',
      md('# Empty', '', '# Empty', 'Full.'),
      [{ anchor: 'empty-1', headings: ['Empty'], text: '# Empty\nFull.' }],
    ],
    [
      'strips closing hashes and inline markup from heading text',
      md('## The `deploy` command ##', 'Body.'),
      [
        {
          anchor: 'the-deploy-command',
          headings: ['The deploy command'],
          text: '## The `deploy` command ##\nBody.',
        },
      ],
    ],
    [
      'does not treat #word, 4-space indents or 7 hashes as headings',
      md('#hashtag', '    # indented code', '####### seven', 'text'),
      [{ anchor: '', headings: [], text: md('#hashtag', '    # indented code', '####### seven', 'text') }],
    ],
    [
      'normalises CRLF and a BOM',
      '\uFEFF# Title\r\nBody.\r\n',
      [{ anchor: 'title', headings: ['Title'], text: '# Title\nBody.' }],
    ],
    ['returns nothing for an empty document', '  \n\n', []],
  ])('%s', (_name, source, chunks) => {
    expect(chunkMarkdown(source)).toEqual(chunks);
  });
});

describe('chunkPlainText', () => {
  it('keeps a short file as one anchorless chunk', () => {
    expect(chunkPlainText('  Canary: a small share of traffic.\n')).toEqual([
      { anchor: '', headings: [], text: 'Canary: a small share of traffic.' },
    ]);
  });

  it('packs paragraphs of a long file into numbered parts under the cap', () => {
    const text = ['a'.repeat(6), 'b'.repeat(6), 'c'.repeat(6), 'd'.repeat(20)].join('\n\n');
    expect(chunkPlainText(text, 16)).toEqual([
      { anchor: 'part-1', headings: [], text: 'aaaaaa\n\nbbbbbb' },
      { anchor: 'part-2', headings: [], text: 'cccccc' },
      { anchor: 'part-3', headings: [], text: 'd'.repeat(20) },
    ]);
  });

  it('returns nothing for a blank file', () => {
    expect(chunkPlainText('\n \n')).toEqual([]);
  });
});

describe('chunkDocument', () => {
  it.each([
    ['guide.md', ['guide']],
    ['guide.MARKDOWN', ['guide']],
    ['notes.txt', ['']],
  ])('chooses the chunker for %s by extension', (path, anchors) => {
    expect(chunkDocument(path, '# Guide\nBody.').map((c) => c.anchor)).toEqual(anchors);
  });
});
