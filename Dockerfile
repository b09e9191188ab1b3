# One image for api, worker and cli: `node dist/apps/<app>/src/main.js`.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The lock covers the example Ember app's workspace too (dev dependencies only, pruned below).
COPY examples/ember-app/package.json ./examples/ember-app/
RUN npm ci
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
COPY extensions ./extensions
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=4", "--no-allocation-site-pretenuring", "dist/apps/api/src/main.js"]
