//! Documentation fragments for the FMUs of this circuit family.

/// Summary of ValveCylinder.
pub const CYLINDER_SUMMARY: &str = r#"<p>A constant-pressure pump (<code>ps</code>) feeds a pressure
compensator whose throttle keeps a fixed pressure margin across a 4/3 proportional directional
valve. Between compensator and valve sits a tiny volume <code>Vv</code> (pressure <code>pv</code>),
which makes the equations stiff. The valve drives a double-acting cylinder; a 200 kg mass slides on
the rod with LuGre friction between end stops. A shuttle valve feeds the higher chamber pressure
back to the compensator. Source: seed 000 (Ustinov et al. 2022), circuit 2; model card
<code>valve-cylinder.md</code>.</p>
<pre>
 ps -[compensator throttle, K]- Vv (pv) -[4/3 valve, Us]-+- A-side V1 (p1) -+
                  ^ psh = max(p1, p2)                    +- B-side V2 (p2) -+ cylinder - mass m, friction
                                                  tank pt <-- return edge --+
</pre>
<p>Input: the valve command <code>U</code> (V). States: <code>Us</code>, <code>dUs</code>,
<code>K</code>, <code>p1</code>, <code>p2</code>, <code>pv</code>, <code>x</code>, <code>v</code>,
<code>z</code>. Inside <code>doStep</code> an adaptive L-stable Rosenbrock method (Rodas3) integrates
with the analytic Jacobian.</p>"#;

/// Summary of ValveActuator.
pub const ACTUATOR_SUMMARY: &str = r#"<p>The hydraulics of the ValveCylinder circuit (pump, pressure
compensator with its small volume <code>Vv</code>, 4/3 proportional valve, double-acting cylinder)
without the mass, its friction and the end stops, for coupling with a multibody tool: the
mechanism supplies the rod position <code>x</code> and velocity <code>v</code>, the FMU returns the
cylinder force <code>F = p1 A1 - p2 A2</code>. No output depends directly on an input, so the
coupling has no algebraic loop. Source: seed 000, circuit 2; model card
<code>valve-cylinder.md</code>.</p>"#;

/// Summary of SlidingMass.
pub const MASS_SUMMARY: &str = r#"<p>A point mass sliding with LuGre friction between two end stops,
driven by an input force <code>F</code>: the mechanical half of the ValveCylinder circuit, to be
coupled with the ValveActuator FMU in a co-simulation (card V6).</p>"#;

/// The equations, numbered as in the model card.
pub const EQUATIONS: &str = r#"<ol>
<li>(V1) Spool: Us'' = Kv wn<sup>2</sup> U &minus; 2 &zeta; wn Us' &minus; wn<sup>2</sup> Us.</li>
<li>(V2) Orifice function f(&Delta;p): the orifice-chain card's regularised two-regime law with
p_tr = 1e5 Pa; bulk modulus B(p) = a1 Emax log10(a2 max(p, 0)/pmax + a3).</li>
<li>(V3) Compensator: Qv = K f(ps &minus; pv);
K' = [C5 &minus; (pv &minus; psh) &minus; (C1 + C2 (ps &minus; pv)/1e5) K] / C3 with psh = max(p1, p2)
(shuttle valve) and (ps &minus; pv) in bar in the C2 term; K is clamped to [0, Kmax] with anti-windup
(K' = 0 while clamped and pushed outward).</li>
<li>(V4) Valve with deadband: s = Us &minus; Ud for Us &ge; Ud, Us + Ud for Us &le; &minus;Ud, else 0;
s &gt; 0: Q1 = Cv s f(pv &minus; p1), Q2 = Cv s f(p2 &minus; pt), Q3 = Q1;
s &lt; 0: Q1 = Cv s f(p1 &minus; pt), Q2 = Cv s f(pv &minus; p2), Q3 = &minus;Q2.
Option <code>valve_overlap</code>: seed 002's overlaps, positive <code>c1</code> on the supply
edges and negative <code>c2</code> on the tank edges of the normalised spool position Us/u_nom.</li>
<li>(V5) p1' = B(p1)/(A1 x + Vdead) (Q1 &minus; A1 v), p2' = B(p2)/(A2 (Sc &minus; x) + Vdead) (A2 v &minus; Q2),
pv' = B(pv)/Vv (Qv &minus; Q3).</li>
<li>(V6) m v' = p1 A1 &minus; p2 A2 &minus; F_mu + F_stop, x' = v; LuGre:
g(v) = (Fc + (Fs &minus; Fc) exp(&minus;(v/vs)<sup>2</sup>))/&sigma;0, z' = v &minus; |v| z / g(v),
F_mu = &sigma;0 z + &sigma;1 z' + kv v; end stops at x = 0 and x = Sc are spring-dampers
(k_s, c_s) that only push.</li>
<li>(V7) Option <code>quasi_static</code>: pv is not integrated but follows from the flow balance
Qv(pv) = Q3(pv), solved at every evaluation by a bracketed Newton iteration (singular
perturbation of the small volume).</li>
</ol>"#;

/// Deviations from the paper and caveats.
pub const NOTES: &str = r#"<ul>
<li>Replaced values (model card): the seed's LuGre parameters are shifted between table cells;
as printed, the friction would have no Coulomb level and no stiction. Used: &sigma;0 = 2.15e6 N/m
(printed 320 N/m), Fc = 320 N (printed 2.15e6 N), Fs = 364 N (printed 1.1376e10 N, read as
1.1376 Fc), vs = 3.47e-3 m/s (printed 347 m/s). This is the card's hypothesis: the printed digits
are reused.</li>
<li>C2 multiplies the drop ps &minus; pv in bar: in 1/Pa the gain would turn negative above 2.6 kPa.</li>
<li>Added (not in the seed): Kmax = 5e-8 m3/(s Pa<sup>0.5</sup>) (anti-windup clamp), end stops
k_s = 1e8 N/m, c_s = 2e5 N s/m, and p_tr = 1e5 Pa (orifice regularisation).</li>
<li>Corrected equations: the seed's valve equation gives Q2 the opposite sign to its pressure
equations and uses Us &minus; Ud on the negative branch (a 4 V jump at Us = &minus;Ud); V4 is the
continuous, sign-consistent form. The LuGre exponent is &minus;(v/vs)<sup>2</sup>.</li>
<li>Seed 002 prints the P-B opening as &minus;x + c1, which jumps by 2 c1 where the edge opens; the
continuous mirror image &minus;x &minus; c1 of the P-A edge is used.</li>
<li>Discontinuities (the K clamp, the deadband edges, the end stops, |v| in LuGre, max(p1, p2)) are
kept as the card states them: all are continuous in the state with a jump only in a derivative
(or, for the clamp, a bounded jump of K'); the step-size control of the integrator rejects and
shortens steps across them, no event location is needed.</li>
<li>Chamber volumes are kept above a tenth of the dead volume, so that a rod pushed far into a
stop by a co-simulation partner never makes a volume vanish.</li>
</ul>"#;
