/** The panel's view model: the shared pure outline (`../outline/`: index, row text, filters, layout, virtual window). */
export * from '../outline/index.ts'
