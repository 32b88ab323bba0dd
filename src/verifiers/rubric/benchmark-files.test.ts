import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  BenchmarkMessagesSchema,
  jsonString,
  parseCsv,
  parseJsonLines,
  parseRecord,
  RubricBenchmarkFileError,
  select,
} from './benchmark-files.js'

describe('parseJsonLines', () => {
  it('reads one object per non-blank line with its line number', () => {
    expect(parseJsonLines('{"a":1}\n\n{"a":2}\n', 'f')).toEqual([
      { line: 1, value: { a: 1 } },
      { line: 3, value: { a: 2 } },
    ])
  })

  it('names the bad line, and recognises a JSON array', () => {
    expect(() => parseJsonLines('{"a":1}\n{"a":', 'load(f)')).toThrow(/^load\(f\): line 2 is not valid JSON/)
    expect(() => parseJsonLines('[{"a":1},\n{"a":2}]', 'f')).toThrow(/looks like one JSON array/)
    expect(() => parseJsonLines('{"a":1}\n[1]', 'f')).toThrow('line 2 is not a JSON object')
    expect(() => parseJsonLines('\n\n', 'f')).toThrow(RubricBenchmarkFileError)
  })
})

describe('parseCsv', () => {
  it('reads quoted fields, doubled quotes, commas and newlines inside quotes, CRLF and a BOM', () => {
    const text = '\ufeffa,b,c\r\n1,"x ""y""","p,q"\r\n2,"multi\nline",\n'
    expect(parseCsv(text, 'f')).toEqual([
      { line: 2, value: { a: '1', b: 'x "y"', c: 'p,q' } },
      { line: 3, value: { a: '2', b: 'multi\nline', c: '' } },
    ])
  })

  it('names the row with the wrong field count and an unterminated quote', () => {
    expect(() => parseCsv('a,b\n1,2\n3\n', 'f')).toThrow('the row on line 3 has 1 fields, the header 2 (a, b)')
    expect(() => parseCsv('a,b\n1,"2\n', 'f')).toThrow('row starting on line 2 has an unterminated quoted field')
    expect(() => parseCsv('a,b\n', 'f')).toThrow('holds a header and no records')
  })
})

describe('parseRecord, jsonString and BenchmarkMessagesSchema', () => {
  const Schema = z.object({
    meta: jsonString(z.object({ rubrics: jsonString(z.array(z.string()).min(1), 'the rubric list') }), 'metadata'),
    messages: BenchmarkMessagesSchema,
  })
  const messages = [{ role: 'user', content: 'hi' }]

  it('decodes double-encoded JSON and passes decoded values through', () => {
    const value = { meta: JSON.stringify({ rubrics: JSON.stringify(['q1']) }), messages }
    expect(parseRecord(Schema, value, 'line 1').meta.rubrics).toEqual(['q1'])
    expect(parseRecord(Schema, { meta: { rubrics: ['q2'] }, messages }, 'line 1').meta.rubrics).toEqual(['q2'])
  })

  it('names the record and the nested field', () => {
    expect(() => parseRecord(Schema, { meta: '{"rubrics": "[1]"}', messages }, 'load(f): line 4')).toThrow(
      'load(f): line 4 is malformed: meta.rubrics[0]: Invalid input: expected string, received number',
    )
    expect(() => parseRecord(Schema, { meta: 'nope', messages }, 'line 4')).toThrow(
      /meta: expected a string holding JSON \(metadata\)/,
    )
    expect(() =>
      parseRecord(Schema, { meta: { rubrics: ['q'] }, messages: [{ role: 'assistant', content: 'x' }] }, 'line 4'),
    ).toThrow(/messages: the conversation must end with a user message/)
    expect(() =>
      parseRecord(Schema, { meta: { rubrics: ['q'] }, messages: [{ role: 'tool', content: 'x' }] }, 'line 4'),
    ).toThrow(/messages\[0\]\.role/)
  })
})

describe('select', () => {
  const entries = [{ id: 'a' }, { id: 'b' }, { id: 'c' }]
  it('keeps ids and a limit, and fails on an unknown id', () => {
    expect(select(entries, { ids: ['c', 'a'] }, (e) => [e.id], 'w')).toEqual([{ id: 'a' }, { id: 'c' }])
    expect(select(entries, { limit: 2 }, (e) => [e.id], 'w')).toEqual([{ id: 'a' }, { id: 'b' }])
    expect(() => select(entries, { ids: ['z'] }, (e) => [e.id], 'w')).toThrow(
      'w: ids: no record with id "z" in this file (3 records)',
    )
    expect(() => select(entries, { limit: 0 }, (e) => [e.id], 'w')).toThrow('limit must be an integer >= 1')
  })
})
