/**
 * Snapshot times (src/tree/time.ts): the fast formatter writes exactly what
 * `Date#toISOString` writes, and the parser gives back the milliseconds of
 * exactly those strings (anything else, even a time `Date.parse` reads, is
 * kept as text by the snapshot).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoTime, MAX_TIME, MIN_TIME, timeOfIso } from '../../src/tree/time.ts'

describe('snapshot times', () => {
  it('isoTime is Date#toISOString, and timeOfIso its inverse, over years 0000-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_TIME, max: MAX_TIME }), (ms) => {
        const text = new Date(ms).toISOString()
        expect(isoTime(ms)).toBe(text)
        expect(timeOfIso(text)).toBe(ms)
      }),
      { numRuns: 20_000 },
    )
    for (const ms of [MIN_TIME, MAX_TIME, 0, -1, 951_782_400_000, 951_868_799_999])
      expect(isoTime(ms)).toBe(new Date(ms).toISOString())
  })

  it('a run of times on one day, then another day: each written in full', () => {
    let ms = Date.UTC(2026, 0, 31, 23, 59, 59, 990)
    for (let i = 0; i < 30; i++, ms += 7) expect(isoTime(ms)).toBe(new Date(ms).toISOString())
  })

  it('timeOfIso refuses what toISOString would not write, even what Date.parse accepts', () => {
    for (const text of [
      '2025-02-30T00:00:00.000Z',
      '2025-02-29T00:00:00.000Z',
      '2025-04-31T10:00:00.000Z',
      '2025-01-01T24:00:00.000Z',
      '2025-01-01T00:00:00Z',
      '2025-01-01T00:00:00.0000Z',
      '2025-01-01T00:00:00.000+00:00',
      '+010000-01-01T00:00:00.000Z',
      '2025-13-01T00:00:00.000Z',
      '2025-00-10T00:00:00.000Z',
    ]) {
      expect(timeOfIso(text), text).toBeUndefined()
    }
    fc.assert(
      fc.property(
        fc.string({ minLength: 24, maxLength: 24, unit: fc.constantFrom(...'0123456789-T:.Z'.split('')) }),
        (text) => {
          const ms = timeOfIso(text)
          if (ms !== undefined) expect(new Date(ms).toISOString()).toBe(text)
        },
      ),
      { numRuns: 20_000 },
    )
  })
})
