/** The plugin's `<style>` elements in the page: tagged `data-plugin` and by name, so each is added once. */

export const PLUGIN_ID = 'dsh-session-tree'

/** A new, empty plugin stylesheet named `name`, appended to the document's head. */
export function appendStylesheet(name: string, doc: Document = document): HTMLStyleElement {
  const style = doc.createElement('style')
  style.dataset.plugin = PLUGIN_ID
  style.dataset.pluginCss = `${PLUGIN_ID}/${name}`
  doc.head.append(style)
  return style
}

/** Add the stylesheet `name` once (by its own tag: the Chat decorations add styles of their own); returns its removal. */
export function injectStylesheet(name: string, css: string, doc: Document = document): () => void {
  const existing = doc.querySelector(`style[data-plugin-css="${PLUGIN_ID}/${name}"]`)
  if (existing) return () => existing.remove()
  const style = appendStylesheet(name, doc)
  style.textContent = css
  return () => style.remove()
}
