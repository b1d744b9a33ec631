// Points in the space queries, keys and values live in: a D3 scatter plot for
// two dimensions, a three.js scene the reader can rotate (drag, or the arrow
// keys) for three, every point labelled with its token and every axis named.
// The 3-D views of a page share one viewpoint (sharedView): rotating one
// turns the others with it, and a redraw keeps it.
// three.js draws through its SVGRenderer, so no WebGL (or GPU) is needed.
// projections() shows why a query scores a key as it does. Each has a download
// menu: the picture as SVG and PNG, the points' coordinates as JSON and CSV.
import * as d3 from 'd3';
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { SVGObject, SVGRenderer } from 'three/examples/jsm/renderers/SVGRenderer.js';

import { exportMenu } from './figure-export.js';
import { availableWidth, titleTag } from './heatmap.js';
import { resolveColor } from './theme.js';

/** Queries, keys, values: purple, teal, orange from the palette, each ≥ 4.5:1 on the page in both themes. */
export const SET_COLORS = ['var(--queries)', 'var(--keys)', 'var(--values)'];

/** The points' coordinates for the download menu: a row per point, named by its set and token. */
function coordinates(sets, title, axisNames) {
  const d = sets[0].d;
  return {
    title,
    rowLabels: sets.flatMap((s) => s.labels.map((label) => `${s.name}: ${label}`)),
    colLabels: axisNames.slice(0, d),
    values: sets.flatMap((s) => Array.from(s.data)),
    rows: sets.reduce((n, s) => n + s.data.length / d, 0),
    cols: d,
  };
}

/** The default viewpoint of a 3-D view, in whole degrees (see sharedView). */
export const DEFAULT_VIEW = { azimuth: 39, elevation: 27 };
/** How far above or below the horizontal plane the camera may go: straight above, "up" on the screen is undefined. */
export const ELEVATION_LIMIT = 84;
const CAMERA_DISTANCE = 3.75;
const KEY_STEP = 5; // degrees an arrow key turns the view

const wrapDegrees = (a) => ((((a + 180) % 360) + 360) % 360) - 180;
const clampElevation = (e) => Math.max(-ELEVATION_LIMIT, Math.min(ELEVATION_LIMIT, e));
/** A view in whole degrees, so that a link's numbers give back exactly the picture. */
const snap = ({ azimuth, elevation }) => ({ azimuth: wrapDegrees(Math.round(azimuth)), elevation: clampElevation(Math.round(elevation)) });

/**
 * One viewpoint for the 3-D views of a page: azimuth (degrees about the vertical axis, from the third axis
 * towards the first) and elevation (degrees above the plane of the first and third axes), the camera always
 * CAMERA_DISTANCE from the origin and looking at it. Every view drawn with it follows it; rotating one turns the
 * others as the pointer moves. onRotated(view) is called when the reader has turned the view (a drag released,
 * an arrow key), with the view snapped to whole degrees; set(view) (a link opened) does not call it.
 */
export function sharedView(onRotated) {
  let view = { ...DEFAULT_VIEW };
  const followers = new Set(); // {element, look(view)} of each 3-D view drawn with it
  const move = (next, except) => {
    for (const follower of followers) {
      if (!follower.element.isConnected) followers.delete(follower); // redrawn since
      else if (follower !== except) follower.look(next);
    }
  };
  return {
    get: () => view,
    set(next) {
      view = snap(next);
      move(view);
    },
    /** @internal scatter3d: the reader is turning `from` (not yet snapped), or has turned it (settled). */
    turn(next, from, { settled }) {
      if (!settled) return move(next, from);
      view = snap(next);
      move(view);
      onRotated?.(view);
    },
    follow(follower) {
      followers.add(follower);
      follower.look(view);
    },
  };
}

/** sets: [{name, data (n·d floats, row-major), d, labels, color}]; orbit: the sharedView a 3-D view follows. */
export function scatter(container, sets, { title, axisNames, orbit = sharedView() }) {
  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
  const d = sets[0].d;
  const legend = root.append('p').attr('class', 'legend-row');
  sets.forEach((s) => {
    legend.append('span').attr('class', 'swatch').attr('aria-hidden', 'true').style('color', s.color).text('●');
    legend.append('span').text(` ${s.name}  `);
  });
  const picture = d >= 3 ? scatter3d(container, sets, axisNames, orbit) : scatter2d(root, sets, axisNames);
  exportMenu(container, picture, coordinates(sets, title, axisNames), title);
}

/**
 * A square plot sized to the page (up to 420 px) whose axes span the data with a margin, the origin included
 * only when the data come near it (it used to be always, which crowded the points into a corner), with the
 * vertical axis named above its top end, clear of the ticks.
 */
function square(root, all, axisNames, label) {
  const size = Math.max(260, Math.min(420, availableWidth(root.node())));
  const pad = 40;
  const top = 26;
  let [lo, hi] = d3.extent(all);
  const span = Math.max(hi - lo, 1e-6);
  if (lo > 0 && lo < 0.5 * span) lo = 0;
  if (hi < 0 && -hi < 0.5 * span) hi = 0;
  const ext = [lo - 0.08 * span, hi + 0.08 * span];
  const x = d3.scaleLinear().domain(ext).nice().range([pad, size - 14]);
  const y = d3.scaleLinear().domain(ext).nice().range([size - pad, top]);
  const svg = root.append('svg').attr('class', 'scatter').attr('viewBox', `0 0 ${size} ${size}`).attr('width', size).attr('height', size)
    .attr('role', 'img').attr('aria-label', label);
  svg.append('g').attr('transform', `translate(0,${size - pad})`).call(d3.axisBottom(x).ticks(5));
  svg.append('g').attr('transform', `translate(${pad},0)`).call(d3.axisLeft(y).ticks(5));
  svg.append('text').attr('class', 'axis-title').attr('x', size - 14).attr('y', size - 6).attr('text-anchor', 'end').text(`${axisNames[0]} →`);
  svg.append('text').attr('class', 'axis-title').attr('x', pad).attr('y', top - 12).attr('text-anchor', 'middle').text(`${axisNames[1]} →`)
    .attr('transform', `rotate(-90 ${pad} ${top - 12}) translate(0 4)`);
  return { svg, x, y };
}

/**
 * Puts each point's label at the first of eight places around it (right, left, above, below, then the
 * diagonals) that overlaps no label or point placed before it, so that close points keep readable names.
 */
function placeLabels(svg, items) {
  const boxes = items.map(({ px, py }) => ({ x: px - 5, y: py - 5, w: 10, h: 10 }));
  const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const width = Number(svg.attr('width'));
  for (const [k, { node, px, py }] of items.entries()) {
    const { width: w, height: h } = node.getBBox();
    const places = [[7, 4, 'start'], [-7, 4, 'end'], [0, -9, 'middle'], [0, 17, 'middle'], [7, -7, 'start'], [-7, -7, 'end'], [7, 15, 'start'], [-7, 15, 'end']];
    const boxOf = ([dx, dy, anchor]) => ({ x: px + dx - (anchor === 'end' ? w : anchor === 'middle' ? w / 2 : 0), y: py + dy - h + 3, w, h });
    const free = places.find((p) => {
      const b = boxOf(p);
      return b.x >= 0 && b.x + b.w <= width && boxes.every((o, j) => j === k || !overlaps(b, o));
    }) ?? places[0];
    node.setAttribute('x', px + free[0]);
    node.setAttribute('y', py + free[1]);
    node.setAttribute('text-anchor', free[2]);
    boxes.push(boxOf(free));
  }
}

function scatter2d(root, sets, axisNames) {
  const { svg, x, y } = square(root, sets.flatMap((s) => Array.from(s.data)), axisNames,
    `${sets.map((s) => s.name).join(', ')} as points in two dimensions, each labelled with its token`);
  const items = [];
  sets.forEach((s) => {
    const g = svg.append('g').attr('data-set', s.name);
    for (let i = 0; i < s.data.length / s.d; i++) {
      const px = x(s.data[i * s.d]);
      const py = y(s.data[i * s.d + 1]);
      g.append('circle').attr('cx', px).attr('cy', py).attr('r', 5).style('fill', s.color);
      const node = g.append('text').attr('x', px + 7).attr('y', py + 4).attr('class', 'point-label').style('fill', s.color).text(s.labels[i]).node();
      items.push({ node, px, py });
    }
  });
  placeLabels(svg, items);
  return svg.node();
}

/** A text label that three.js places in 3-D (an SVG node in the SVGRenderer's output). */
function label3d(text, color, className) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  node.textContent = text;
  node.style.fill = color;
  node.setAttribute('class', className);
  return new SVGObject(node);
}

function scatter3d(container, sets, axisNames, orbit) {
  const size = 320;
  const scene = new THREE.Scene();
  const all = sets.flatMap((s) => Array.from(s.data));
  const scale = 1 / Math.max(1e-6, ...all.map(Math.abs));
  const camera = new THREE.PerspectiveCamera(45, 1, 0.1, 100);
  const renderer = new SVGRenderer();
  renderer.setSize(size, size);
  renderer.setClearColor(new THREE.Color(resolveColor('var(--paper)')));
  renderer.domElement.setAttribute('role', 'img');
  renderer.domElement.setAttribute('aria-label',
    `${sets.map((s) => s.name).join(', ')} as points in three dimensions (${axisNames.slice(0, 3).join(', ')}); drag or use the arrow keys to rotate`);
  renderer.domElement.setAttribute('tabindex', '0');
  renderer.domElement.classList.add('scatter3d');
  container.appendChild(renderer.domElement);
  // The axes from the origin, each named at its end.
  const axisMaterial = new THREE.LineBasicMaterial({ color: resolveColor('var(--ghost)') });
  [[1.2, 0, 0], [0, 1.2, 0], [0, 0, 1.2]].forEach((end, k) => {
    const geometry = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(0, 0, 0), new THREE.Vector3(...end)]);
    scene.add(new THREE.Line(geometry, axisMaterial));
    const name = label3d(axisNames[k], 'var(--ink)', 'axis-label');
    name.position.set(end[0] * 1.08, end[1] * 1.08, end[2] * 1.08);
    scene.add(name);
  });
  const sphere = new THREE.IcosahedronGeometry(0.055, 0);
  sets.forEach((s) => {
    const material = new THREE.MeshBasicMaterial({ color: resolveColor(s.color) });
    for (let i = 0; i < s.data.length / s.d; i++) {
      const p = new THREE.Mesh(sphere, material);
      p.position.set(s.data[i * s.d] * scale, s.data[i * s.d + 1] * scale, s.data[i * s.d + 2] * scale);
      scene.add(p);
      const name = label3d(s.labels[i], s.color, 'point-label');
      name.position.copy(p.position).add(new THREE.Vector3(0.06, 0.06, 0));
      scene.add(name);
    }
  });
  // SVGRenderer projects SVGObjects (the labels) with the camera's world matrix as it was: update it first.
  const render = () => {
    camera.updateMatrixWorld();
    renderer.render(scene, camera);
  };
  const svg = renderer.domElement;
  const self = {
    element: svg,
    look({ azimuth, elevation }) {
      const d2r = THREE.MathUtils.degToRad;
      camera.position.setFromSpherical(new THREE.Spherical(CAMERA_DISTANCE, d2r(90 - elevation), d2r(azimuth)));
      camera.lookAt(0, 0, 0);
      svg.dataset.azimuth = String(azimuth);
      svg.dataset.elevation = String(elevation);
      render();
    },
  };
  orbit.follow(self);
  // Only rotation: the view is its two angles, so that a link can give it back (and the wheel scrolls the page).
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.enableZoom = false;
  controls.enablePan = false;
  controls.minPolarAngle = THREE.MathUtils.degToRad(90 - ELEVATION_LIMIT);
  controls.maxPolarAngle = THREE.MathUtils.degToRad(90 + ELEVATION_LIMIT);
  const cameraView = () => {
    const spherical = new THREE.Spherical().setFromVector3(camera.position);
    return { azimuth: THREE.MathUtils.radToDeg(spherical.theta), elevation: 90 - THREE.MathUtils.radToDeg(spherical.phi) };
  };
  controls.addEventListener('change', () => {
    render();
    orbit.turn(cameraView(), self, { settled: false });
  });
  controls.addEventListener('end', () => orbit.turn(cameraView(), self, { settled: true }));
  // Arrow keys turn the view by KEY_STEP degrees (OrbitControls' own keys would pan).
  svg.addEventListener('keydown', (event) => {
    const step = { ArrowLeft: [-KEY_STEP, 0], ArrowRight: [KEY_STEP, 0], ArrowUp: [0, KEY_STEP], ArrowDown: [0, -KEY_STEP] }[event.key];
    if (!step) return;
    event.preventDefault();
    const { azimuth, elevation } = orbit.get();
    orbit.turn({ azimuth: azimuth + step[0], elevation: elevation + step[1] }, self, { settled: true });
  });
  return svg;
}

/**
 * One query's scores as projections (two dimensions): the query's direction
 * through the origin, each key dropped perpendicularly onto it. The foot of
 * key j lies at k_j · q̂ along the direction, so its score q · k_j = |q| (k_j · q̂):
 * a key scores high by being long in the query's direction, not by being near it.
 */
export function projections(container, { query, keys, queryLabel, keyLabels, axisNames, scores }) {
  const root = d3.select(container);
  root.selectAll('*').remove();
  const title = `The scores of “${queryLabel}” as projections onto its direction`;
  root.append(titleTag(container)).attr('class', 'heatmap-title').text(title);
  const norm = Math.hypot(query[0], query[1]) || 1;
  const unit = [query[0] / norm, query[1] / norm];
  const n = keys.length / 2;
  const along = Array.from({ length: n }, (_, j) => keys[2 * j] * unit[0] + keys[2 * j + 1] * unit[1]);
  const { svg, x, y } = square(root, [...keys, ...query, 0], axisNames,
    `The query “${queryLabel}” as an arrow and every key dropped onto its direction; the foot of each key is its score divided by the query's length`);
  const reach = 2 * Math.max(...keys.map(Math.abs), ...query.map(Math.abs));
  const ends = [[-reach * unit[0], -reach * unit[1]], [reach * unit[0], reach * unit[1]]];
  svg.append('clipPath').attr('id', 'projection-clip').append('rect').attr('x', 40).attr('y', 12).attr('width', 248).attr('height', 248);
  svg.append('line').attr('class', 'direction').attr('clip-path', 'url(#projection-clip)')
    .attr('x1', x(ends[0][0])).attr('y1', y(ends[0][1])).attr('x2', x(ends[1][0])).attr('y2', y(ends[1][1]));
  svg.append('line').attr('class', 'query-arrow').attr('x1', x(0)).attr('y1', y(0)).attr('x2', x(query[0])).attr('y2', y(query[1]))
    .style('stroke', SET_COLORS[0]);
  const qx = x(query[0]), qy = y(query[1]);
  const items = [{ node: svg.append('text').attr('class', 'point-label').style('fill', SET_COLORS[0]).text(`q (${queryLabel})`).node(), px: qx, py: qy }];
  const best = along.indexOf(Math.max(...along));
  for (let j = 0; j < n; j++) {
    const k = [keys[2 * j], keys[2 * j + 1]];
    const foot = [along[j] * unit[0], along[j] * unit[1]];
    const g = svg.append('g').attr('class', `key${j === best ? ' best' : ''}`).attr('data-key', j).attr('data-along', along[j]).attr('data-score', scores[j]);
    g.append('line').attr('class', 'drop').attr('x1', x(k[0])).attr('y1', y(k[1])).attr('x2', x(foot[0])).attr('y2', y(foot[1]));
    g.append('circle').attr('cx', x(k[0])).attr('cy', y(k[1])).attr('r', 5).style('fill', SET_COLORS[1]);
    g.append('circle').attr('class', 'foot').attr('cx', x(foot[0])).attr('cy', y(foot[1])).attr('r', 3);
    items.push({ node: g.append('text').attr('class', 'point-label').style('fill', SET_COLORS[1]).text(keyLabels[j]).node(), px: x(k[0]), py: y(k[1]) });
  }
  placeLabels(svg, items); // close keys (journey and starts) keep readable names
  // Its numbers: each key's coordinates, where its foot lies along q̂, and its score.
  exportMenu(container, svg.node(), {
    title,
    rowLabels: keyLabels,
    colLabels: [...axisNames.slice(0, 2), 'k · q̂', 'score q · k'],
    values: keyLabels.flatMap((_, j) => [keys[2 * j], keys[2 * j + 1], along[j], scores[j]]),
    rows: n,
    cols: 4,
  }, title);
  return { along, best };
}
