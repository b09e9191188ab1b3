<template>
  <h1>Warehouses</h1>
  <ul id="warehouses">
    {{#each @model as |warehouse|}}
      <li>{{warehouse.name}} ({{warehouse.sections.length}} sections)</li>
    {{/each}}
  </ul>
  {{outlet}}
</template>
