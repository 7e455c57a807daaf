/** A v1 list's page query: `page` counts from 1. */
export type PageQuery = { page: number; limit: number }

/** The rows a page query asks for. */
export const pageWindow = ({ page, limit }: PageQuery) => ({ offset: (page - 1) * limit, limit })

/** The `pagination` object of every v1 list answer. */
export const paginationOf = ({ page, limit }: PageQuery, total: number) => ({
  page,
  total,
  hasNext: page * limit < total,
})
