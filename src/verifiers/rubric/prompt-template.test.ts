import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { graderPrompt } from './grader.js'
import {
  attr,
  fill,
  loadPromptTemplate,
  PromptFileError,
  renderConversation,
  renderCriterion,
  renderPrompt,
} from './prompt-template.js'

const dir = mkdtempSync(join(tmpdir(), 'seqk-prompts-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const file = (name: string, text: string) => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return pathToFileURL(path)
}

describe('loadPromptTemplate', () => {
  it('reads the sections, names the version and hashes what reaches the model', () => {
    const url = file(
      'demo.v3.md',
      '# Demo\n\nDocs {{ignored}}.\n\n## system\n\nBe brief.\n\n## user\n\nSay {{x}}.\n\n## repair\n\nAgain: {{problem}}\n',
    )
    const t = loadPromptTemplate(url)
    expect(t).toMatchObject({ name: 'demo.v3', system: 'Be brief.', user: 'Say {{x}}.', repair: 'Again: {{problem}}' })
    expect(t.id).toMatch(/^demo\.v3@[0-9a-f]{8}$/)
    // The documentation header is not part of the hash.
    const same = loadPromptTemplate(
      file('demo2.v3.md', '# Other docs\n## system\nBe brief.\n## user\nSay {{x}}.\n## repair\nAgain: {{problem}}'),
    )
    expect(same.id.split('@')[1]).toBe(t.id.split('@')[1])
    const edited = loadPromptTemplate(
      file('demo3.v3.md', '## system\nBe briefer.\n## user\nSay {{x}}.\n## repair\nAgain: {{problem}}'),
    )
    expect(edited.id.split('@')[1]).not.toBe(t.id.split('@')[1])
  })

  it('explains a missing file and a file without sections', () => {
    expect(() => loadPromptTemplate(pathToFileURL(join(dir, 'missing.v1.md')))).toThrow(PromptFileError)
    expect(() => loadPromptTemplate(pathToFileURL(join(dir, 'missing.v1.md')))).toThrow(/must copy them into dist/)
    expect(() => loadPromptTemplate(file('bad.v1.md', '## system\nonly a system prompt'))).toThrow(
      /needs a "## system" and a "## user" section/,
    )
    expect(() => loadPromptTemplate(file('twice.v1.md', '## system\na\n## user\nb\n## user\nc'))).toThrow(
      /appears twice/,
    )
  })

  it('loads the bundled grader prompts', () => {
    expect(graderPrompt('per-criterion').id).toMatch(/^grader\.v1@[0-9a-f]{8}$/)
    expect(graderPrompt('all-at-once').id).toMatch(/^grader-all\.v1@[0-9a-f]{8}$/)
    expect(graderPrompt('all-at-once').repair).toContain('{{problem}}')
  })
})

describe('fill, renderPrompt and the rendering helpers', () => {
  it('substitutes in one pass and names a missing placeholder', () => {
    expect(fill('{{a}} and {{b}}', { a: '{{b}}', b: 'B' })).toBe('{{b}} and B')
    expect(() => fill('{{nope}}', {})).toThrow('prompt placeholder {{nope}} has no value')
  })

  it('renders system and user messages', () => {
    const t = loadPromptTemplate(file('r.v1.md', '## system\nS {{x}}\n## user\nU {{x}}'))
    expect(renderPrompt(t, { x: '1' })).toEqual([
      { role: 'system', content: 'S 1' },
      { role: 'user', content: 'U 1' },
    ])
  })

  it('renders conversations and criteria', () => {
    expect(
      renderConversation([
        { role: 'system', content: 'S' },
        { role: 'user', content: 'Hi' },
      ]),
    ).toBe('[system]\nS\n\n[user]\nHi')
    expect(renderCriterion({ id: 'c1', text: 'Mentions "x"', points: -2 }, { index: 1 })).toBe(
      '<criterion id="c1" index="1" points="-2">Mentions "x"</criterion>',
    )
    expect(attr('a"<&')).toBe('a&quot;&lt;&amp;')
  })
})
