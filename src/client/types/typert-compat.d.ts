// Hand-written declaration shim (not generator output). A module file on
// purpose (a script would replace the protocol module instead of merging):
// the generated remote client declares each method as `Promise<T>`, whereas
// the rc.8 client returns `Promise<RemoteResult<T>>`; this maps every
// generated namespace onto `TypertRemoteNamespaceMap` with that wrapping, so
// `ctx.remote.sessionTree.list(...)` is typed from the generated declaration.
import type { RemoteResult } from '@deepseek-ai/dsh-typert-protocol'
import type { TypeRTRemoteNamespaceMap } from '@deepseek-ai/dsh-type-meta'

type TypertCompatRemoted<Namespace> = {
  [Method in keyof Namespace]: Namespace[Method] extends (...args: infer Args) => Promise<infer Result>
    ? (...args: Args) => Promise<RemoteResult<Result>>
    : never
}
type TypertCompatNamespaces = {
  [Namespace in keyof TypeRTRemoteNamespaceMap]: TypertCompatRemoted<TypeRTRemoteNamespaceMap[Namespace]>
}

declare module '@deepseek-ai/dsh-typert-protocol' {
  interface TypertRemoteNamespaceMap extends TypertCompatNamespaces {}
}
