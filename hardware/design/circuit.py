"""The Tengen board's schematic as code (SKiDL, KiCad 6 symbols and footprints).

Two kinds of PCB make the board:

- **the controller**: an RP2040 with its flash and crystal as on the Raspberry Pi Pico (the
  TENGEN_PICO image runs on it unchanged: same flash size, and GPIO24, GPIO25 and GPIO29 as
  the Pico uses them), USB-C, the battery and its charger, the 3.3 V regulator, the scan
  drivers (three 74HC4051 column muxes, three row decoders), the two faces' headers, the keys
  and paddles, the buzzer, the voice (a PAM8302A class-D amplifier fed by PWM through an RC
  low-pass, a speaker on a plug) and the PCF8563 RTC;
- **the sensor strip**, one per board line (19 identical strips): 19 Hall sensors under the
  line's points. A strip takes its line's enable from the first row wire of its input header
  and passes the other rows on shifted by one, so identical strips on one ribbon bus each
  take the next line (strip n gets ROW n). Columns and power pass straight through.

``system(variant)`` joins them as the ribbons do, for the electrical rules check, the pin-map
check and the BOM; ``controller(variant)`` and ``strip(variant)`` alone are the two PCBs'
netlists to lay out. Variant ``A`` is the design (TMAG5253, enabled by 74HC238 outputs);
``B`` the cheaper fallback (SS39ET/SS49E-class sensors, each strip's power switched by an
AO3401A whose gate is a 74HC138 output). The wiring of the decoders' enables and the bus
order are hardware/README.md §1's; firmware/hal/rp2040.py's ``address_word`` is what drives
them, and ``pinmap.py`` checks the two against each other.
"""

import atexit
import os
import shutil
import tempfile

from hardware.design.parts import PARTS

N = 19  # board lines: rows and columns of sensors
BUS_PINS = 40  # the strip bus: 19 rows, 19 columns, 3V3, GND
STRIP_3V3 = 39
STRIP_GND = 40
SYMBOLS = "/usr/share/kicad/symbols"  # Debian's kicad-symbols
HERE = os.path.dirname(os.path.abspath(__file__))

# The resistors that load the rails all the time (budgets.py adds up their current).
MIDREF_DIV = ("10k", "10k")  # 3V3 to MIDREF to GND: the third mux's reference inputs
BANK_PULLUP = "10k"  # ROW_B3, ROW_B4 to 3V3: every line off from reset
VSYS_DIV = ("200k", "100k")  # VSYS to GPIO29 to GND: VSYS/3, as on the Pico
MUX_PULLDOWN = "1M"  # each mux common to GND: a dead sensor reads ~0
LINE_PULLUP = "100k"  # variant B: each line's FET gate to 3V3
# The voice's low-pass from the PWM pin (hardware/README.md §5): R1 into C1, then R2 into the
# divider R3 with C2 across it. Two poles near 5 kHz, and R3 / (R1 + R2 + R3) sets the level
# a full-scale PWM reaches the amplifier with (budgets.py, "Voice").
VOICE_FILTER = {"R1": "1k", "C1": "33nF", "R2": "15k", "R3": "1k", "C2": "33nF"}
VOICE_COUPLING = "1uF"  # the amplifier's two input capacitors (DC block)
VOICE_EN_PULLDOWN = "10k"  # the amp stays shut down from reset until the firmware drives it


def row_pin(k):
    """The strip bus pin of row wire ``k`` (odd pins 1..37)."""
    return 2 * k + 1


def col_pin(k):
    """The strip bus pin of column ``k`` (even pins 2..38)."""
    return 2 * k + 2


_READY = []  # set up once (whoever imported skidl first)


def _skidl():
    """SKiDL, set up for KiCad 6's libraries, quiet, and writing no log files."""
    if not _READY:
        _READY.append(True)
        import contextlib
        import io
        import logging

        for v in range(6, 11):  # SKiDL looks for every KiCad version's folder and says so
            os.environ.setdefault("KICAD%d_SYMBOL_DIR" % v, SYMBOLS)
        # SKiDL logs to the console and to <script>.log/.erc files from its import on: the
        # import's notes (no fp-lib-table: footprints here are names, checked by bom.py) go
        # nowhere, the files are removed, and what the checks need is captured (build.erc).
        # The import opens skidl_REPL.log in the working folder and stopping removes it: done
        # in a folder of its own, so two processes started in one folder (pytest's workers)
        # never remove each other's file, and nothing is left in the user's folder.
        here, scratch = os.getcwd(), tempfile.mkdtemp(prefix="tengen-skidl-log-")
        try:
            os.chdir(scratch)
            with contextlib.redirect_stderr(io.StringIO()):
                import skidl
            skidl.logger.stop_log_file_output()
        finally:
            os.chdir(here)
            shutil.rmtree(scratch, True)
        logging.getLogger("skidl").setLevel(logging.ERROR)
        # KiCad's own libraries only (SKiDL would search the working folder first, and
        # recursively). Its parsed-library cache lives in this checkout's .venv (parsing
        # takes ~25 s), not in the user's home that every checkout on the machine shares.
        skidl.config.lib_search_paths[skidl.KICAD6] = [SYMBOLS]
        venv = os.path.join(os.path.dirname(os.path.dirname(HERE)), ".venv")
        if os.path.isdir(venv):
            cache = os.path.join(venv, "skidl-cache")
            os.makedirs(cache, exist_ok=True)
        else:
            cache = tempfile.mkdtemp(prefix="tengen-skidl-")
            atexit.register(shutil.rmtree, cache, True)
        skidl.config.pickle_dir = cache
    import skidl

    skidl.set_default_tool(skidl.KICAD6)
    return skidl


_TEMPLATES = {}
_COUNT = [0]  # parts made in the circuit being built


def _nc():
    # SKiDL's no-connect net of the circuit being built (set by ``with circuit``).
    import builtins

    return builtins.NC


def part(key, **fields):
    """A part of the catalogue (hardware/design/parts.py) in the current circuit; ``fields``
    (such as ``role``) go into the netlist beside the manufacturer and part number."""
    skidl = _skidl()
    spec = PARTS[key]
    if spec.lib is None:  # a symbol KiCad's libraries lack: its pins from the datasheet
        tmpl = _TEMPLATES.get(key)
        if tmpl is None:
            kinds = skidl.Pin.types
            func = {
                "input": kinds.INPUT, "output": kinds.OUTPUT, "bidirectional": kinds.BIDIR,
                "passive": kinds.PASSIVE, "pwrin": kinds.PWRIN, "tri": kinds.TRISTATE,
            }  # fmt: skip
            pins = [skidl.Pin(num=n, name=name, func=func[kind]) for n, name, kind in spec.pins]
            tmpl = skidl.Part(
                tool=skidl.SKIDL, name=spec.symbol, ref_prefix=spec.ref, dest=skidl.TEMPLATE,
                pins=pins,
            )  # fmt: skip
            _TEMPLATES[key] = tmpl
    else:  # loaded once: SKiDL searches the library folders at every load
        tmpl = _TEMPLATES.get(key)
        if tmpl is None:
            tmpl = skidl.Part(spec.lib, spec.symbol, dest=skidl.TEMPLATE)
            _TEMPLATES[key] = tmpl
    p = tmpl(footprint=spec.footprint)
    _COUNT[0] += 1
    p.tag = "%s-%d" % (key, _COUNT[0])  # stable across runs: the PCB keeps its links
    p.value = spec.value
    p.fields["Manufacturer"] = spec.manufacturer
    p.fields["MPN"] = spec.mpn
    p.fields["Description"] = spec.description
    p.fields["Key"] = key
    for name, value in fields.items():
        p.fields[name] = value
    return p


def power_nets(*names):
    """Nets that a source outside the circuit (a connector, a cell) drives, for the ERC."""
    skidl = _skidl()
    nets = []
    for name in names:
        net = skidl.Net(name)
        net.drive = skidl.POWER
        nets.append(net)
    return nets


def cap(value, a, b, **fields):
    """A capacitor from net ``a`` to net ``b``."""
    c = part("c" + value, **fields)
    c[1] += a
    c[2] += b
    return c


def res(value, a, b, **fields):
    """A resistor from net ``a`` to net ``b``."""
    r = part("r" + value, **fields)
    r[1] += a
    r[2] += b
    return r


# --- the sensor strip ------------------------------------------------------------------------


def strip(variant, rows_in, cols, v3, gnd, line=None):
    """One sensor strip: its input header on ``rows_in`` (the 19 row wires as this strip sees
    them: ``rows_in[0]`` enables it) and ``cols``; returns the row wires its output header
    passes on: the same wires shifted by one, so the next strip's first is the next line. ``line`` names the strip's board line
    in the parts' fields (the system netlist), None for the strip's own PCB."""
    skidl = _skidl()
    tag = {} if line is None else {"line": str(line)}
    j_in = part("strip_header", role="strip in", **tag)
    j_out = part("strip_header", role="strip out", **tag)
    for k in range(N):
        # Past the last line the wires carry nothing: open on this strip's input too.
        j_in[row_pin(k)] += rows_in[k] if k < len(rows_in) else _nc()
        j_in[col_pin(k)] += cols[k]
        j_out[col_pin(k)] += cols[k]
    rows_out = rows_in[1:]
    for k, wire in enumerate(rows_out):
        j_out[row_pin(k)] += wire
    for k in range(len(rows_out), N):
        j_out[row_pin(k)] += _nc()
    for j in (j_in, j_out):
        j[STRIP_3V3] += v3
        j[STRIP_GND] += gnd
    enable = rows_in[0]
    if variant == "A":
        rail = v3
    else:  # the line's sensors powered through a P-FET whose gate the '138 pulls low
        rail = skidl.Net("LINE_VCC")
        rail.drive = skidl.POWER  # +3V3 through the P-FET: the ERC cannot see through it
        q = part("pfet", role="line power", **tag)
        q["S"] += v3
        q["G"] += enable
        q["D"] += rail
        res(LINE_PULLUP, enable, v3, **tag)  # off while the ribbon is unplugged
        cap("10uF", rail, gnd, **tag)
    for x in range(N):
        if variant == "A":
            h = part("tmag5253", role="sensor", column=str(x), **tag)
            h["VCC"] += rail
            h["EN"] += enable
            h["EP"] += gnd  # TI: the exposed pad may float or go to GND
        else:
            h = part("ss39et", role="sensor", column=str(x), **tag)
            h["VS"] += rail
        h["GND"] += gnd
        h["OUT"] += cols[x]
        cap("100nF", rail, gnd, **tag)
    return rows_out


# --- the controller --------------------------------------------------------------------------


def controller(variant):
    """The controller PCB in the current circuit; returns its strip bus
    ``(rows, cols, v3, gnd)``: the nets of its strip header."""
    skidl = _skidl()
    NC = _nc()
    v3, gnd, vbus, vbat, vsys = power_nets("+3V3", "GND", "VBUS", "VBAT", "VSYS")
    v11 = skidl.Net("+1V1")
    net = skidl.Net

    # The RP2040 as on the Pico: core supply from its own regulator, a decoupling capacitor
    # per IOVDD pin, ADC_AVDD through the Pico's 200 ohm filter (Pico datasheet §4.3).
    mcu = part("rp2040", role="mcu")
    for p in mcu["IOVDD"]:
        p += v3
        cap("100nF", v3, gnd)
    mcu["VREG_IN"] += v3
    cap("1uF", v3, gnd)
    mcu["VREG_VOUT"] += v11
    for p in mcu["DVDD"]:
        p += v11
        cap("100nF", v11, gnd)
    cap("1uF", v11, gnd)
    mcu["USB_VDD"] += v3
    cap("100nF", v3, gnd)
    avdd = net("ADC_AVDD")
    res("200R", v3, avdd)
    mcu["ADC_AVDD"] += avdd
    cap("1uF", avdd, gnd)
    mcu["GND"] += gnd
    mcu["TESTEN"] += gnd
    run = net("RUN")
    mcu["RUN"] += run
    res("10k", run, v3)
    swd = part("debug", role="swd")
    swd[1] += mcu["SWCLK"]
    swd[2] += gnd
    swd[3] += mcu["SWD"]

    # 12 MHz crystal (RP2040 hardware design guide): 1 k in series on XOUT, 15 pF loads.
    xtal = part("xtal")
    xin, xout = net("XIN"), net("XOUT")
    mcu["XIN"] += xin
    xtal[1] += xin
    res("1k", mcu["XOUT"], xout)
    xtal[3] += xout
    xtal[2, 4] += gnd
    cap("15pF", xin, gnd)
    cap("15pF", xout, gnd)

    # QSPI flash; BOOTSEL pulls its chip select low through 1 k.
    flash = part("flash")
    qss = net("QSPI_SS")
    mcu["QSPI_SS"] += qss
    flash["~{CS}"] += qss
    flash["DO(IO1)"] += mcu["QSPI_SD1"]
    flash["IO2"] += mcu["QSPI_SD2"]
    flash["DI(IO0)"] += mcu["QSPI_SD0"]
    flash["CLK"] += mcu["QSPI_SCLK"]
    flash["IO3"] += mcu["QSPI_SD3"]
    flash["VCC"] += v3
    flash["GND"] += gnd
    cap("100nF", v3, gnd)
    boot = part("button", role="bootsel")
    bs = net("BOOTSEL")
    res("1k", qss, bs)
    boot[1] += bs
    boot[2] += gnd

    # USB-C, device only: 5.1 k on each CC pin asks the host for 5 V.
    usb = part("usb_c", role="usb")
    usb["VBUS"] += vbus
    usb["GND"] += gnd
    usb["SHIELD"] += gnd
    for cc in ("CC1", "CC2"):
        res("5k1", usb[cc], gnd)
    dp, dm = net("USB_DP"), net("USB_DM")
    usb["D+"] += dp
    usb["D-"] += dm
    res("27R", dp, mcu["USB_DP"])
    res("27R", dm, mcu["USB_DM"])
    usb["SBU1"] += NC
    usb["SBU2"] += NC

    # Power: USB and the battery (through the switch) OR-ed into VSYS, as on the Pico
    # (Pico datasheet §4.5); the charger fills the cell from USB; the LDO makes 3V3.
    d_usb = part("schottky")
    d_usb["A"] += vbus
    d_usb["K"] += vsys
    bat = part("bat_conn", role="battery")
    bat[1] += vbat
    bat[2] += gnd
    sw = part("power_switch", role="power")
    vsw = net("VBAT_SW")
    sw["B"] += vbat
    sw["A"] += vsw
    sw["C"] += NC
    d_bat = part("schottky")
    d_bat["A"] += vsw
    d_bat["K"] += vsys
    chg = part("charger")
    chg["VDD"] += vbus
    chg["VSS"] += gnd
    chg["VBAT"] += vbat
    res("2k", chg["PROG"], gnd)  # 1000 V / 2 k = 500 mA (MCP73831 datasheet §5.1.2)
    chg["STAT"] += NC
    cap("4.7uF", vbus, gnd)
    cap("4.7uF", vbat, gnd)
    ldo = part("ldo")
    ldo["VIN"] += vsys
    ldo["EN"] += vsys
    ldo["GND"] += gnd
    ldo["VOUT"] += v3
    cap("10uF", vsys, gnd)
    cap("10uF", v3, gnd)

    # The Pico's own GPIO roles: VSYS/3 on GPIO29 (ADC3), VBUS sense on GPIO24, LED on 25.
    vsys3 = net("VSYS_DIV3")
    res(VSYS_DIV[0], vsys, vsys3)
    res(VSYS_DIV[1], vsys3, gnd)
    mcu["GPIO29_ADC3"] += vsys3
    sense = net("VBUS_SENSE")
    res("5k6", vbus, sense)
    res("10k", sense, gnd)
    mcu["GPIO24"] += sense
    led = part("led", role="status led")
    la, gp25 = net("LED_A"), net("LED")
    mcu["GPIO25"] += gp25
    res("470R", gp25, la)
    led["A"] += la
    led["K"] += gnd

    # The debug log: UART0's transmit pin only. GPIO1, its receive pin, is the voice's PWM.
    uart = part("uart", role="uart")
    tx = net("DBG_TX")
    mcu["GPIO0"] += tx
    uart[1] += tx
    uart[2] += gnd

    # --- the scan: mux selects and row addresses in the PIO's bit order (GPIO2..GPIO9) ---
    sel = [net("MUX_S%d" % i) for i in range(3)]
    addr = [net("ROW_A%d" % i) for i in range(3)]
    b3, b4 = net("ROW_B3"), net("ROW_B4")
    for i in range(3):
        mcu["GPIO%d" % (2 + i)] += sel[i]
        mcu["GPIO%d" % (5 + i)] += addr[i]
    mcu["GPIO8"] += b3
    mcu["GPIO9"] += b4
    res(BANK_PULLUP, b3, v3)  # every line off from reset until the PIO drives the bank bits
    res(BANK_PULLUP, b4, v3)

    rows = [net("ROW%d" % k) for k in range(N)]
    cols = [net("COL%d" % k) for k in range(N)]
    mid = net("MIDREF")  # mid-rail reference on the third mux's spare inputs (self-test)
    res(MIDREF_DIV[0], v3, mid)
    res(MIDREF_DIV[1], mid, gnd)
    cap("100nF", mid, gnd)

    # Decoder enables (hardware/README.md §1): bank 0 = decoder 0, 1 = decoder 1,
    # 2 = decoder 2, 3 = none. '238: /E1 /E2 active low, E3 active high; the '138 alike.
    enables = [(b3, b4, v3), (b4, gnd, b3), (b3, gnd, b4)]
    key = "dec238" if variant == "A" else "dec138"
    out = "Y%d" if variant == "A" else "O%d"
    e1, e2 = ("~{E1}", "~{E2}") if variant == "A" else ("E1", "E2")
    for d in range(3):
        dec = part(key, role="row decoder", index=str(d))
        for i in range(3):
            dec["A%d" % i] += addr[i]
        dec[e1] += enables[d][0]
        dec[e2] += enables[d][1]
        dec["E3"] += enables[d][2]
        dec["VCC"] += v3
        dec["GND"] += gnd
        cap("100nF", v3, gnd)
        for y in range(8):
            row = d * 8 + y
            dec[out % y] += rows[row] if row < N else NC

    adc = [mcu["GPIO26_ADC0"], mcu["GPIO27_ADC1"], mcu["GPIO28_ADC2"]]
    for m in range(3):
        mux = part("mux", role="column mux", index=str(m))
        for i in range(3):
            mux["S%d" % i] += sel[i]
        mux["~{E}"] += gnd
        mux["VEE"] += gnd
        mux["GND"] += gnd
        mux["VCC"] += v3
        cap("100nF", v3, gnd)
        common = net(("COL_0_7", "COL_8_15", "COL_16_18")[m])  # pinmap.csv's net names
        mux["A"] += common
        adc[m] += common
        res(MUX_PULLDOWN, common, gnd)  # a missing or dead sensor reads ~0, not a floating value
        for i in range(8):
            col = m * 8 + i
            mux["A%d" % i] += cols[col] if col < N else mid

    header = part("strip_header", role="strip bus")
    for k in range(N):
        header[row_pin(k)] += rows[k]
        header[col_pin(k)] += cols[k]
    header[STRIP_3V3] += v3
    header[STRIP_GND] += gnd

    # --- the clock: faces, keys, paddles, buzzer, RTC ---
    wr, data = net("LCD_WR"), net("LCD_DATA")
    mcu["GPIO18"] += wr
    mcu["GPIO19"] += data
    for side, gp in (("left", 16), ("right", 17)):
        face = part("face", role="face", side=side)
        cs = net("LCD_CS_" + side[0].upper())
        mcu["GPIO%d" % gp] += cs
        face[1] += cs
        face[2] += wr
        face[3] += data
        face[4] += gnd
        face[5] += v3
        face[6] += NC  # the backlight stays off: a reflective face has no glare

    for role, side, gp, key_, name in (
        ("paddle", "left", 10, "paddle", "BTN_PADDLE_L"),
        ("paddle", "right", 11, "paddle", "BTN_PADDLE_R"),
        ("key pause", "", 12, "button", "BTN_PAUSE"),
        ("key mode", "", 13, "button", "BTN_MODE"),
        ("key plus", "", 20, "button", "BTN_PLUS"),
        ("key minus", "", 21, "button", "BTN_MINUS"),
    ):
        fields = {"side": side} if side else {}
        s = part(key_, role=role, **fields)
        line = net(name)
        mcu["GPIO%d" % gp] += line
        s[1] += line  # to GND, the internal pull-up: pressed reads 0
        s[2] += gnd

    base, pwm = net("BUZZER_B"), net("BUZZER")
    mcu["GPIO22"] += pwm
    res("1k", pwm, base)
    q = part("npn", role="buzzer driver")
    q["B"] += base
    q["E"] += gnd
    bz_lo = net("BUZZER_LO")
    q["C"] += bz_lo
    bz = part("buzzer", role="buzzer")
    bz["-"] += bz_lo
    bz["+"] += v3
    res("1k", v3, bz_lo)  # discharges the piezo between edges

    # RTC: 3V3 or the coin cell, whichever is higher, through two Schottky diodes.
    vrtc, cell = net("VRTC"), power_nets("VCELL")[0]
    d1, d2 = part("schottky"), part("schottky")
    d1["A"] += v3
    d1["K"] += vrtc
    d2["A"] += cell
    d2["K"] += vrtc
    coin = part("coin_cell", role="rtc cell")
    coin["+"] += cell
    coin["-"] += gnd
    rtc = part("rtc", role="rtc")
    rtc["VDD"] += vrtc
    rtc["VSS"] += gnd
    cap("100nF", vrtc, gnd)
    x32 = part("xtal32k")
    x32[1] += rtc["OSCI"]
    x32[2] += rtc["OSCO"]
    sda, scl = net("I2C1_SDA"), net("I2C1_SCL")
    mcu["GPIO14"] += sda
    mcu["GPIO15"] += scl
    rtc["SDA"] += sda
    rtc["SCL"] += scl
    res("4k7", sda, v3)
    res("4k7", scl, v3)
    rtc["~{INT}"] += NC
    rtc["CLKO"] += NC

    # The voice, placed last: the parts before it keep their references (and the PCB its
    # links to them).
    voice(mcu["GPIO1"], mcu["GPIO23"], vsys, gnd)
    return rows, cols, v3, gnd


def voice(pwm, en, vsys, gnd):
    """The voice: the PWM pin ``pwm`` through a two-pole RC low-pass and divider into a
    PAM8302A (differential input, its IN- held at the filter's ground through its capacitor),
    the amplifier's shutdown pin on ``en`` (pulled down: silent from reset), fed from VSYS
    (not the 3V3 rail the ADC measures against), and the speaker's plug on its bridged outputs."""
    skidl = _skidl()
    net = skidl.Net
    f = VOICE_FILTER
    v_pwm, v_en = net("VOICE_PWM"), net("VOICE_EN")
    pwm += v_pwm
    en += v_en
    n1, n2 = net("VOICE_LP1"), net("VOICE_LP2")
    res(f["R1"], v_pwm, n1, role="voice filter")
    cap(f["C1"], n1, gnd, role="voice filter")
    res(f["R2"], n1, n2, role="voice filter")
    res(f["R3"], n2, gnd, role="voice filter")
    cap(f["C2"], n2, gnd, role="voice filter")
    amp = part("voice_amp", role="voice amp")
    inp, inn = net("VOICE_INP"), net("VOICE_INN")
    cap(VOICE_COUPLING, n2, inp, role="voice filter")
    cap(VOICE_COUPLING, inn, gnd, role="voice filter")
    amp["IN+"] += inp
    amp["IN-"] += inn
    amp["~{SD}"] += v_en
    res(VOICE_EN_PULLDOWN, v_en, gnd)
    amp["VDD"] += vsys
    amp["GND"] += gnd
    amp["NC"] += _nc()
    cap("1uF", vsys, gnd)  # beside VDD (the datasheet's 1 uF X7R)
    cap("10uF", vsys, gnd)  # the bulk for the phrase's current peaks
    spk = part("speaker_conn", role="speaker")
    outp, outn = net("SPK_P"), net("SPK_N")
    amp["OUT+"] += outp
    amp["OUT-"] += outn
    spk[1] += outp
    spk[2] += outn
    return amp


# --- the three netlists ------------------------------------------------------------------------


def _circuit():
    skidl = _skidl()
    circuit = skidl.Circuit()
    circuit.track_src = False  # no source lines in the netlist: the same design, the same file
    circuit.track_abs_path = False
    _COUNT[0] = 0
    return circuit


def system(variant="A"):
    """The whole board: the controller and 19 strips on their ribbons, as a SKiDL Circuit."""
    circuit = _circuit()
    with circuit:
        rows, cols, v3, gnd = controller(variant)
        for line in range(N):
            rows = strip(variant, rows, cols, v3, gnd, line=line)
    return circuit


def controller_pcb(variant="A"):
    """The controller PCB alone, as a SKiDL Circuit."""
    circuit = _circuit()
    with circuit:
        controller(variant)
    return circuit


def strip_pcb(variant="A"):
    """One sensor strip PCB alone, as a SKiDL Circuit: its bus comes from the header."""
    skidl = _skidl()
    circuit = _circuit()
    with circuit:
        v3, gnd = power_nets("+3V3", "GND")
        rows = [skidl.Net("ROW_IN%d" % k) for k in range(N)]
        cols = [skidl.Net("COL%d" % k) for k in range(N)]
        strip(variant, rows, cols, v3, gnd)
    return circuit
