/**
 * What this process is, in the words a person started it with (`dsh web`,
 * `dsh --profile headless`): how another process's refusal names it
 * (`SIDECAR_CLAIMED`). Only the command and its profile, never the rest of
 * the command line (a headless prompt is the user's text).
 */
export function processKind(argv: readonly string[] = process.argv): string {
  const args = argv.slice(2)
  const at = args.indexOf('--profile')
  const profile = at >= 0 ? args[at + 1] : args.find((arg) => arg.startsWith('--profile='))?.slice('--profile='.length)
  if (args[0] === 'web' || profile === 'web') return 'dsh web'
  return profile ? `dsh --profile ${profile}` : 'dsh'
}
