/**
 * The texts Pi puts in front of its model for entries that are not plain
 * messages (`convertToLlm` in pi-coding-agent's `core/messages.ts`, checked
 * against the published 0.73.1 package by test/unit/interchange/interchange-pi.test.ts).
 */
import type { JsonObject } from '../../tree/types.ts'

export const COMPACTION_SUMMARY_PREFIX =
  'The conversation history before this point was compacted into the following summary:\n\n<summary>\n'
export const COMPACTION_SUMMARY_SUFFIX = '\n</summary>'
export const BRANCH_SUMMARY_PREFIX =
  'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n'
export const BRANCH_SUMMARY_SUFFIX = '</summary>'

/** Pi's user-message text for a `bashExecution` message. */
export function bashExecutionText(message: JsonObject): string {
  let text = `Ran \`${String(message.command ?? '')}\`\n`
  const output = typeof message.output === 'string' ? message.output : ''
  text += output ? `\`\`\`\n${output}\n\`\`\`` : '(no output)'
  if (message.cancelled === true) text += '\n\n(command cancelled)'
  else if (message.exitCode !== null && message.exitCode !== undefined && message.exitCode !== 0)
    text += `\n\nCommand exited with code ${String(message.exitCode)}`
  if (message.truncated === true && typeof message.fullOutputPath === 'string' && message.fullOutputPath)
    text += `\n\n[Output truncated. Full output: ${message.fullOutputPath}]`
  return text
}
