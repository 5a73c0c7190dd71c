import { interchangeSection } from './interchange.ts'
const r = await interchangeSection.run({ runs: 1 })
console.log(JSON.stringify(r, null, 1))
