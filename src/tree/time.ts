/**
 * ISO-8601 times exactly as `Date#toISOString` writes them
 * (`YYYY-MM-DDTHH:mm:ss.sssZ`, years 0000-9999), to and from milliseconds,
 * several times faster than `Date`: a snapshot stores each node's time as a
 * number and a restore writes one string per node.
 */

/** The times this format covers: years 0000 to 9999. */
export const MIN_TIME = -62_167_219_200_000
export const MAX_TIME = 253_402_300_799_999

const DAY = 86_400_000

/** Days since 1970-01-01 → year, month (1-12), day (Howard Hinnant's `civil_from_days`). */
function civil(days: number): [number, number, number] {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day]
}

/** Year, month (1-12), day → days since 1970-01-01 (`days_from_civil`). */
function daysOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

// The date characters of the last time written: a run of times on one day formats only the clock.
let lastDay = Number.NaN
let y0 = 48,
  y1 = 48,
  y2 = 48,
  y3 = 48,
  m0 = 48,
  m1 = 48,
  d0 = 48,
  d1 = 48

/** `new Date(ms).toISOString()` for `MIN_TIME <= ms <= MAX_TIME` (whole milliseconds). */
export function isoTime(ms: number): string {
  const days = Math.floor(ms / DAY)
  let t = ms - days * DAY
  if (days !== lastDay) {
    lastDay = days
    const [y, mo, d] = civil(days)
    y0 = 48 + Math.floor(y / 1000)
    y1 = 48 + (Math.floor(y / 100) % 10)
    y2 = 48 + (Math.floor(y / 10) % 10)
    y3 = 48 + (y % 10)
    m0 = 48 + Math.floor(mo / 10)
    m1 = 48 + (mo % 10)
    d0 = 48 + Math.floor(d / 10)
    d1 = 48 + (d % 10)
  }
  const h = Math.floor(t / 3_600_000)
  t -= h * 3_600_000
  const mi = Math.floor(t / 60_000)
  t -= mi * 60_000
  const s = Math.floor(t / 1000)
  const f = t - s * 1000
  // One flat string from its character codes (a template literal would build a chain of pieces).
  return String.fromCharCode(
    y0,
    y1,
    y2,
    y3,
    45,
    m0,
    m1,
    45,
    d0,
    d1,
    84,
    48 + Math.floor(h / 10),
    48 + (h % 10),
    58,
    48 + Math.floor(mi / 10),
    48 + (mi % 10),
    58,
    48 + Math.floor(s / 10),
    48 + (s % 10),
    46,
    48 + Math.floor(f / 100),
    48 + (Math.floor(f / 10) % 10),
    48 + (f % 10),
    90,
  )
}

/** The separators of `YYYY-MM-DDTHH:mm:ss.sssZ` by position; every other position is a digit. */
const SEPARATOR: Readonly<Record<number, number>> = { 4: 45, 7: 45, 10: 84, 13: 58, 16: 58, 19: 46, 23: 90 }
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function digits(text: string, from: number, count: number): number {
  let n = 0
  for (let i = from; i < from + count; i++) n = n * 10 + (text.charCodeAt(i) - 48)
  return n
}

function canonicalShape(text: string): boolean {
  if (text.length !== 24) return false
  for (let i = 0; i < 24; i++) {
    const c = text.charCodeAt(i)
    const separator = SEPARATOR[i]
    if (separator === undefined ? c < 48 || c > 57 : c !== separator) return false
  }
  return true
}

/** The milliseconds of a time when `isoTime` would write it exactly so; undefined otherwise. */
export function timeOfIso(text: string): number | undefined {
  if (!canonicalShape(text)) return undefined
  const y = digits(text, 0, 4)
  const mo = digits(text, 5, 2)
  const d = digits(text, 8, 2)
  const h = digits(text, 11, 2)
  const mi = digits(text, 14, 2)
  const s = digits(text, 17, 2)
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
  if (
    mo < 1 ||
    mo > 12 ||
    d < 1 ||
    d > DAYS_IN_MONTH[mo - 1]! + (mo === 2 && leap ? 1 : 0) ||
    h > 23 ||
    mi > 59 ||
    s > 59
  )
    return undefined
  return daysOf(y, mo, d) * DAY + h * 3_600_000 + mi * 60_000 + s * 1000 + digits(text, 20, 3)
}
