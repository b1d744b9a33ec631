// Points in the space queries, keys and values live in: a D3 scatter plot for
// two dimensions, a three.js scene the reader can rotate (drag, or the arrow
// keys) for three. three.js draws through its SVGRenderer, so no WebGL (or GPU)
// is needed.
import * as d3 from 'd3';
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { SVGRenderer } from 'three/examples/jsm/renderers/SVGRenderer.js';

const COLORS = ['#440154', '#21918c', '#e5a50a']; // viridis ends and a contrasting amber

/** sets: [{name, data (n·d floats, row-major), d, labels}] */
export function scatter(container, sets, { title }) {
  const root = d3.select(container);
  root.selectAll('*').remove();
  root.append('h4').attr('class', 'heatmap-title').text(title);
  const d = sets[0].d;
  const legend = root.append('p').attr('class', 'legend-row');
  sets.forEach((s, k) => {
    legend.append('span').attr('class', `swatch swatch-${k}`).text('●');
    legend.append('span').text(` ${s.name}  `);
  });
  if (d >= 3) return scatter3d(container, sets);
  return scatter2d(root, sets);
}

function scatter2d(root, sets) {
  const size = 300;
  const pad = 34;
  const all = sets.flatMap((s) => Array.from(s.data));
  const ext = d3.extent(all.concat([0]));
  const x = d3.scaleLinear().domain(ext).nice().range([pad, size - 10]);
  const y = d3.scaleLinear().domain(ext).nice().range([size - pad, 10]);
  const svg = root.append('svg').attr('class', 'scatter').attr('viewBox', `0 0 ${size} ${size}`).attr('width', size)
    .attr('role', 'img').attr('aria-label', `${sets.map((s) => s.name).join(', ')} as points in two dimensions`);
  svg.append('g').attr('transform', `translate(0,${size - pad})`).call(d3.axisBottom(x).ticks(5));
  svg.append('g').attr('transform', `translate(${pad},0)`).call(d3.axisLeft(y).ticks(5));
  sets.forEach((s, k) => {
    const n = s.data.length / s.d;
    const g = svg.append('g').attr('data-set', s.name);
    for (let i = 0; i < n; i++) {
      const px = x(s.data[i * s.d]);
      const py = y(s.data[i * s.d + 1]);
      g.append('circle').attr('cx', px).attr('cy', py).attr('r', 5).attr('fill', COLORS[k % COLORS.length]);
      g.append('text').attr('x', px + 7).attr('y', py + 4).attr('class', 'point-label').text(s.labels[i]);
    }
  });
}

function scatter3d(container, sets) {
  const size = 320;
  const scene = new THREE.Scene();
  const all = sets.flatMap((s) => Array.from(s.data));
  const scale = 1 / Math.max(1e-6, ...all.map(Math.abs));
  const camera = new THREE.PerspectiveCamera(45, 1, 0.1, 100);
  camera.position.set(2.6, 2.2, 3.2);
  const renderer = new SVGRenderer();
  renderer.setSize(size, size);
  renderer.setClearColor(new THREE.Color('#fbfbf8'));
  renderer.domElement.setAttribute('role', 'img');
  renderer.domElement.setAttribute('aria-label', `${sets.map((s) => s.name).join(', ')} as points in three dimensions; drag or use the arrow keys to rotate`);
  renderer.domElement.setAttribute('tabindex', '0');
  renderer.domElement.classList.add('scatter3d');
  container.appendChild(renderer.domElement);
  const axes = new THREE.AxesHelper(1.2);
  scene.add(axes);
  const sphere = new THREE.IcosahedronGeometry(0.045, 0);
  sets.forEach((s, k) => {
    const material = new THREE.MeshBasicMaterial({ color: COLORS[k % COLORS.length] });
    for (let i = 0; i < s.data.length / s.d; i++) {
      const p = new THREE.Mesh(sphere, material);
      p.position.set(s.data[i * s.d] * scale, s.data[i * s.d + 1] * scale, s.data[i * s.d + 2] * scale);
      scene.add(p);
    }
  });
  const controls = new OrbitControls(camera, renderer.domElement);
  const render = () => renderer.render(scene, camera);
  controls.addEventListener('change', render);
  // Arrow keys rotate (OrbitControls' own keys pan): move the camera on its sphere.
  const spherical = new THREE.Spherical();
  renderer.domElement.addEventListener('keydown', (event) => {
    const step = { ArrowLeft: [-0.15, 0], ArrowRight: [0.15, 0], ArrowUp: [0, -0.15], ArrowDown: [0, 0.15] }[event.key];
    if (!step) return;
    event.preventDefault();
    spherical.setFromVector3(camera.position.clone().sub(controls.target));
    spherical.theta += step[0];
    spherical.phi = Math.min(Math.PI - 0.1, Math.max(0.1, spherical.phi + step[1]));
    camera.position.setFromSpherical(spherical).add(controls.target);
    camera.lookAt(controls.target);
    controls.update();
    render();
  });
  render();
}
