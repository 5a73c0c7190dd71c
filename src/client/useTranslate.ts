/**
 * The active locale and its translate function as a React hook, shared by the
 * Tree tab, the header action and the Chat decorations. It re-renders when the
 * host's locale service changes (the service may also arrive late).
 */
import { useMemo, useSyncExternalStore } from 'react'
import { resolveLocale, translator, type HostLocale, type Locale, type Translate } from './i18n.ts'

const NO_SUBSCRIPTION = (): (() => void) => () => {}

export function useTranslate(hostLocale: () => HostLocale | undefined): {
  readonly t: Translate
  readonly locale: Locale
} {
  const host = hostLocale()
  const subscribe = useMemo(() => (host ? (listener: () => void) => host.subscribe(listener) : NO_SUBSCRIPTION), [host])
  const locale = useSyncExternalStore(
    subscribe,
    () => resolveLocale(host),
    (): Locale => 'en',
  )
  return useMemo(() => ({ t: translator(locale), locale }), [locale])
}
