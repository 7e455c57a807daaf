import { render } from 'preact'
import { App } from './app.tsx'
import './theme.tsx'
import './i18n.tsx'
import './style.css'

const root = document.getElementById('studio')
if (root) render(<App />, root)
