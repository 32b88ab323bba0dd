import { describe, expect, it } from 'vitest'
import { loadOnce } from './remote.js'

describe('loadOnce', () => {
  it('loads on first use only, and tries again after a failed load', async () => {
    let loads = 0
    const sdk = loadOnce(async () => {
      loads++
      if (loads === 1) throw new Error('module not found')
      return { client: loads }
    })
    expect(loads).toBe(0)
    await expect(sdk()).rejects.toThrow('module not found')
    const [a, b] = await Promise.all([sdk(), sdk()])
    expect(a).toBe(b)
    expect(await sdk()).toEqual({ client: 2 })
    expect(loads).toBe(2)
  })
})
