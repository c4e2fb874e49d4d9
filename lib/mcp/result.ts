/** The shape every tool answers in: the structured result, and the same as JSON text for clients that read only text. */

/** A tool result: `structuredContent` (matching the tool's output schema) and its JSON as text. */
export function toolResult(structured: Record<string, unknown>): {content: Array<{type: 'text'; text: string}>; structuredContent: Record<string, unknown>} {
  return {content: [{type: 'text', text: JSON.stringify(structured)}], structuredContent: structured};
}
