import type { ComponentChildren } from 'preact'
import { type Inline, parseMarkdown } from './markdown.ts'

const renderInline = (nodes: Inline[]): ComponentChildren =>
  nodes.map((node) => {
    if (typeof node === 'string') return node
    if (node.type === 'code') return <code>{node.text}</code>
    if (node.type !== 'link') {
      const Tag = node.type
      return <Tag>{renderInline(node.children)}</Tag>
    }
    return (
      <a href={node.href} target="_blank" rel="noopener noreferrer">
        {renderInline(node.children)}
      </a>
    )
  })

/** Assistant text as elements with text children only (see markdown.ts for why). */
export const MarkdownView = ({ text }: { text: string }) => (
  <>
    {parseMarkdown(text).map((block) => {
      if (block.type === 'code')
        return (
          <pre>
            <code>{block.text}</code>
          </pre>
        )
      if (block.type === 'paragraph') return <p>{renderInline(block.children)}</p>
      const items = block.items.map((item) => <li>{renderInline(item)}</li>)
      return block.isOrdered ? <ol>{items}</ol> : <ul>{items}</ul>
    })}
  </>
)
