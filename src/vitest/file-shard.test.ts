import { describe, expect, it } from 'vitest'
import { fileShardHint } from './file-shard.js'

const vitestSays = (files: number, index: number, count: number) => ({
  type: 'Unhandled Error',
  message: `--shard <count> must be a smaller than count of test files. Resolved ${files} test files for --shard=${index}/${count}.`,
})

describe('fileShardHint', () => {
  it("turns Vitest's too-few-files error into the numbers and the task-level fix", () => {
    const hint = fileShardHint({
      shard: { index: 2, count: 4 },
      merging: false,
      files: 0,
      errors: [vitestSays(1, 2, 4)],
    })
    expect(hint).toContain("Vitest's --shard=2/4 splits the run by file, and it has 1 eval file for 4 shards")
    expect(hint).toContain('SEQK_SHARD=i/4 (i = 1..4)')
    expect(hint).toContain('npx seqk merge')
    expect(fileShardHint({ merging: false, files: 0, errors: [vitestSays(3, 1, 5)] })).toContain(
      'it has 3 eval files for 5 shards',
    )
  })

  it('names a shard that got no file (--passWithNoTests)', () => {
    expect(fileShardHint({ shard: { index: 3, count: 3 }, merging: false, files: 0, errors: [] })).toMatch(
      /--shard=3\/3 gave this machine no eval file .* SEQK_SHARD=i\/3/,
    )
  })

  it('names the known cause of message-less errors in merged blobs', () => {
    const hint = fileShardHint({
      merging: true,
      files: 0,
      errors: [{ type: 'Unhandled Error' }, { type: 'Unhandled Error' }],
    })
    expect(hint).toMatch(
      /^seqk: 2 of the merged blobs carry errors without a message .* more shards than eval files.*SEQK_SHARD=i\/N/,
    )
  })

  it('says nothing of a run that sharded well, or of errors with their own message', () => {
    expect(fileShardHint({ shard: { index: 1, count: 2 }, merging: false, files: 3, errors: [] })).toBeUndefined()
    expect(
      fileShardHint({ merging: true, files: 2, errors: [{ type: 'Unhandled Error', message: 'boom' }] }),
    ).toBeUndefined()
    expect(fileShardHint({ merging: false, files: 0, errors: [] })).toBeUndefined()
  })
})
