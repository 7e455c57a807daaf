/** The install page's chunk: the customiser with its preview, and the script tag (see ../install.tsx). */
export { Customiser } from './customiser.tsx'
export { ScriptTag } from './script-tag.tsx'
