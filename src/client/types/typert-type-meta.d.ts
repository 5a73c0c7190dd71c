// Hand-written declaration shim (not generator output). A script file on
// purpose: it declares the module that the published typert generator's
// `lib/typert.remote-client.d.ts` imports but that is not published
// (`@deepseek-ai/dsh-type-meta`), mapped onto the rc.8 protocol's names.
// Only the browser client's type check reads it; the generated files stay
// exactly as generated.
declare module '@deepseek-ai/dsh-type-meta' {
  import type { TypertRemoteContribution } from '@deepseek-ai/dsh-typert-protocol'
  export type TypeRTRemoteContribution = TypertRemoteContribution
  export interface TypeRTRemoteMap {}
  export interface TypeRTRemoteNamespaceMap {}
  export interface TypeRTRemoteScopeMap {}
}
